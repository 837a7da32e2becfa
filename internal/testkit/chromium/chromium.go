// Package chromium drives one headless Chromium process over the DevTools
// protocol, for the tests of the pages t2sbench writes (the viewer's
// static copy): a test binary starts the browser once (Start) and opens
// each page it checks in a new tab of it (Browser.Load), which reads the
// rendered DOM (Page.DOM) and takes screenshots (Page.Screenshot). One
// process serves every page, instead of one process and one fresh profile
// per page as `chromium --dump-dom URL` would need.
//
// The protocol runs over the pipe transport (--remote-debugging-pipe:
// the browser reads JSON messages, each ended by a NUL byte, from file
// descriptor 3 and writes its answers and events to descriptor 4), so
// that the package needs the standard library only: no WebSocket client,
// no port. Pages are attached as flat sessions (Target.attachToTarget
// with flatten), each command naming its session.
//
// Find locates the binary ($T2S_CHROMIUM, else chromium,
// chromium-browser or google-chrome on $PATH); tests skip with a message
// when it reports none.
//
// A typical test binary:
//
//	var browser = sync.OnceValues(func() (*chromium.Browser, error) {
//		bin, err := chromium.Find()
//		if err != nil {
//			return nil, err
//		}
//		return chromium.Start(context.Background(), bin)
//	})
//
//	// in a test:
//	p, err := b.Load(ctx, "file:///tmp/site/index.html#/overview", chromium.LoadOptions{VirtualTime: 5 * time.Second})
//	dom, err := p.DOM(ctx)
//	p.Close()
package chromium

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// flags are the command-line flags every browser Start launches gets
// besides --remote-debugging-pipe and --user-data-dir: headless, no
// sandbox (tests run as root in containers), no GPU, and none of the
// background traffic (updates, sync, first-run pages) of a desktop
// browser.
var flags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-background-networking",
	"--no-first-run",
	"--disable-component-update",
	"--disable-sync",
	"--disable-extensions",
	"--hide-scrollbars",
	"--mute-audio",
}

// ErrNotFound is returned by Find when no Chromium is installed.
var ErrNotFound = errors.New("chromium: no Chromium found (install Debian's chromium package or set T2S_CHROMIUM)")

// Find returns the path of the Chromium binary: $T2S_CHROMIUM, else the
// first of chromium, chromium-browser and google-chrome on $PATH; it
// returns ErrNotFound when there is none.
func Find() (string, error) {
	for _, name := range []string{os.Getenv("T2S_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Browser is one headless Chromium process with its DevTools pipe. Its
// methods are safe for concurrent use; each Page is one tab.
type Browser struct {
	cmd     *exec.Cmd
	profile string
	stderr  *tailBuffer

	wmu sync.Mutex // serializes writes to the pipe
	w   io.WriteCloser

	mu       sync.Mutex
	next     int64
	pending  map[int64]chan message
	sessions map[string]*Page
	closed   bool
	err      error         // why the pipe ended, once done is closed
	done     chan struct{} // closed when the reader stops
}

// message is one DevTools protocol message the browser sends: an answer
// to a command (ID, Result or Error) or an event (Method), in a page's
// session when SessionID is set. An event's parameters are not kept:
// pages wait for events by name only.
type message struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *protocolError  `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type protocolError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *protocolError) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("%s (%d): %s", e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// Start launches the Chromium at bin headless, with flags and a fresh
// profile in a temporary directory (removed by Close), and returns once
// the browser answers on its DevTools pipe. ctx bounds the start only.
func Start(ctx context.Context, bin string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "t2sbench-chromium-")
	if err != nil {
		return nil, fmt.Errorf("chromium: profile directory: %w", err)
	}
	// toBrowser is the browser's fd 3 (it reads commands), fromBrowser its
	// fd 4 (it writes answers and events).
	toR, toW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium: pipe: %w", err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		toR.Close()
		toW.Close()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium: pipe: %w", err)
	}
	args := append(append([]string{}, flags...), "--remote-debugging-pipe", "--user-data-dir="+profile, "about:blank")
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{toR, fromW}
	b := &Browser{cmd: cmd, profile: profile, stderr: &tailBuffer{max: 16 << 10}, w: toW,
		pending: map[int64]chan message{}, sessions: map[string]*Page{}, done: make(chan struct{})}
	cmd.Stderr = b.stderr
	err = cmd.Start()
	toR.Close()
	fromW.Close()
	if err != nil {
		toW.Close()
		fromR.Close()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium: starting %s: %w", bin, err)
	}
	go b.read(fromR)
	var v struct {
		Product string `json:"product"`
	}
	if err := b.call(ctx, "", "Browser.getVersion", nil, &v); err != nil {
		b.Close()
		return nil, fmt.Errorf("chromium: %s did not answer on its DevTools pipe: %w", bin, err)
	}
	return b, nil
}

// read decodes the browser's messages until the pipe ends, answering
// pending calls and queueing page events.
func (b *Browser) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if jerr := json.Unmarshal(raw[:len(raw)-1], &m); jerr != nil {
			err = fmt.Errorf("decoding a DevTools message: %w", jerr)
			break
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else if p := b.sessions[m.SessionID]; p != nil && m.Method != "" {
			p.queue(m)
		}
		b.mu.Unlock()
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("the browser closed its DevTools pipe")
	}
	b.mu.Lock()
	b.err = fmt.Errorf("chromium: %w; its stderr ends:\n%s", err, b.stderr.String())
	for id, ch := range b.pending {
		delete(b.pending, id)
		close(ch)
	}
	for _, p := range b.sessions {
		p.queue(message{})
	}
	b.mu.Unlock()
	close(b.done)
}

// call sends method with params in session (the browser's own when
// empty) and decodes the answer's result into result (when not nil).
func (b *Browser) call(ctx context.Context, session, method string, params, result any) error {
	ch := make(chan message, 1)
	b.mu.Lock()
	if b.closed || b.err != nil {
		err := b.err
		b.mu.Unlock()
		if err == nil {
			err = errors.New("chromium: browser closed")
		}
		return err
	}
	b.next++
	id := b.next
	b.pending[id] = ch
	b.mu.Unlock()

	m := struct {
		ID        int64  `json:"id"`
		Method    string `json:"method"`
		Params    any    `json:"params,omitempty"`
		SessionID string `json:"sessionId,omitempty"`
	}{id, method, params, session}
	data, err := json.Marshal(m)
	if err != nil {
		b.forget(id)
		return fmt.Errorf("chromium: %s: %w", method, err)
	}
	b.wmu.Lock()
	_, err = b.w.Write(append(data, 0))
	b.wmu.Unlock()
	if err != nil {
		b.forget(id)
		return fmt.Errorf("chromium: %s: writing to the DevTools pipe: %w", method, err)
	}
	select {
	case <-ctx.Done():
		b.forget(id)
		return fmt.Errorf("chromium: %s: %w", method, ctx.Err())
	case ans, ok := <-ch:
		if !ok {
			<-b.done
			return fmt.Errorf("chromium: %s: %w", method, b.err)
		}
		if ans.Error != nil {
			return fmt.Errorf("chromium: %s: %w", method, ans.Error)
		}
		if result != nil {
			if err := json.Unmarshal(ans.Result, result); err != nil {
				return fmt.Errorf("chromium: %s: decoding the result: %w", method, err)
			}
		}
		return nil
	}
}

func (b *Browser) forget(id int64) {
	b.mu.Lock()
	delete(b.pending, id)
	b.mu.Unlock()
}

// Close ends the browser (Browser.close, then a kill after 5 s) and
// removes its profile.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	b.call(ctx, "", "Browser.close", nil, nil) // the pipe may end before the answer
	cancel()
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.w.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
	<-b.done
	return os.RemoveAll(b.profile)
}

// LoadOptions says how Load opens a page.
type LoadOptions struct {
	// Width and Height set the viewport in CSS pixels (screenshots have
	// this size); zero keeps the browser's default (800 x 600).
	Width, Height int
	// VirtualTime, when positive, runs the page on virtual time, as
	// --virtual-time-budget does: the page's timers and animations run
	// as fast as the page has work, and time stands still while a
	// network fetch (a script the page loads) is pending; Load returns
	// when the page has used the budget. Zero runs the page on its own
	// clock, and Load returns at its load event.
	VirtualTime time.Duration
}

// Page is one tab of a Browser, attached as a session.
type Page struct {
	b       *Browser
	target  string
	session string

	mu     sync.Mutex
	events []message
	notify chan struct{} // has a value while events is not empty
}

// queue appends an event for Wait; an empty message says the pipe ended.
// It is called with b.mu held.
func (p *Page) queue(m message) {
	p.mu.Lock()
	p.events = append(p.events, m)
	p.mu.Unlock()
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// wait returns when the page has had event method since the last wait
// for it, discarding the events before it.
func (p *Page) wait(ctx context.Context, method string) error {
	for {
		p.mu.Lock()
		for len(p.events) > 0 {
			m := p.events[0]
			p.events = p.events[1:]
			if m.Method == "" {
				p.mu.Unlock()
				<-p.b.done
				return fmt.Errorf("chromium: waiting for %s: %w", method, p.b.err)
			}
			if m.Method == method {
				p.mu.Unlock()
				return nil
			}
		}
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("chromium: waiting for %s: %w", method, ctx.Err())
		case <-p.notify:
		}
	}
}

// Load opens url in a new tab and returns once it is loaded (see
// LoadOptions.VirtualTime). The caller closes the page.
func (b *Browser) Load(ctx context.Context, url string, opt LoadOptions) (*Page, error) {
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": created.TargetID}, nil)
		return nil, err
	}
	p := &Page{b: b, target: created.TargetID, session: attached.SessionID, notify: make(chan struct{}, 1)}
	b.mu.Lock()
	b.sessions[p.session] = p
	b.mu.Unlock()
	if err := p.navigate(ctx, url, opt); err != nil {
		p.Close()
		return nil, fmt.Errorf("%w (loading %s)", err, url)
	}
	return p, nil
}

func (p *Page) navigate(ctx context.Context, url string, opt LoadOptions) error {
	if err := p.call(ctx, "Page.enable", nil, nil); err != nil {
		return err
	}
	if opt.Width > 0 && opt.Height > 0 {
		if err := p.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": opt.Width, "height": opt.Height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
			return err
		}
	}
	// On virtual time, as headless Chromium's --virtual-time-budget: time
	// stands still while the navigation starts, then runs with the budget.
	virtual := opt.VirtualTime > 0
	if virtual {
		if err := p.call(ctx, "Emulation.setVirtualTimePolicy", map[string]any{"policy": "pause"}, nil); err != nil {
			return err
		}
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("chromium: navigating: %s", nav.ErrorText)
	}
	if !virtual {
		return p.wait(ctx, "Page.loadEventFired")
	}
	if err := p.call(ctx, "Emulation.setVirtualTimePolicy", map[string]any{"policy": "pauseIfNetworkFetchesPending", "budget": opt.VirtualTime.Milliseconds()}, nil); err != nil {
		return err
	}
	return p.wait(ctx, "Emulation.virtualTimeBudgetExpired")
}

func (p *Page) call(ctx context.Context, method string, params, result any) error {
	return p.b.call(ctx, p.session, method, params, result)
}

// Eval evaluates the JavaScript expression in the page and decodes its
// value (JSON-serializable) into result.
func (p *Page) Eval(ctx context.Context, expr string, result any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("chromium: evaluating %.60q: %s %s", expr, e.Text, e.Exception.Description)
	}
	if err := json.Unmarshal(r.Result.Value, result); err != nil {
		return fmt.Errorf("chromium: evaluating %.60q: decoding %.60q: %w", expr, r.Result.Value, err)
	}
	return nil
}

// DOM returns the page's document serialized as --dump-dom prints it:
// the doctype, then the root element's outer HTML.
func (p *Page) DOM(ctx context.Context) (string, error) {
	var s string
	err := p.Eval(ctx, `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") + document.documentElement.outerHTML`, &s)
	return s, err
}

// Screenshot returns a PNG of the page's viewport.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return nil, fmt.Errorf("chromium: decoding the screenshot: %w", err)
	}
	return png, nil
}

// Close closes the page's tab; closing it again does nothing.
func (p *Page) Close() error {
	p.b.mu.Lock()
	_, open := p.b.sessions[p.session]
	delete(p.b.sessions, p.session)
	p.b.mu.Unlock()
	if !open {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
}

// tailBuffer keeps the last max bytes written to it (the browser's
// stderr, for error messages).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}

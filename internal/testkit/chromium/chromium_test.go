package chromium_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/t2sbench/t2sbench/internal/testkit/chromium"
)

// page loads a script file after its load event and then, on a timer of
// 10 s, writes a line: a DOM read at the load event sees neither (the
// timer runs on the real clock there), a read after a virtual-time budget
// of 15 s sees both (virtual time runs the timer at once).
const page = `<!doctype html>
<html><head><title>t</title></head><body><p id="a">static</p>
<script>
window.addEventListener('load', function () {
  var s = document.createElement('script');
  s.src = 'late.js';
  document.head.appendChild(s);
});
</script></body></html>
`

const late = `setTimeout(function () {
  var p = document.createElement('p');
  p.id = 'b';
  p.textContent = 'after the timer';
  document.body.appendChild(p);
}, 10000);
`

func site(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"index.html": page, "late.js": late} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "file://" + filepath.Join(dir, "index.html")
}

func start(t *testing.T) *chromium.Browser {
	t.Helper()
	bin, err := chromium.Find()
	if errors.Is(err, chromium.ErrNotFound) {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := chromium.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// TestLoad opens one page several times in one browser, in parallel tabs:
// on virtual time the DOM holds what the late script and its timer wrote,
// at the load event it does not, and a screenshot has the viewport's size.
func TestLoad(t *testing.T) {
	b := start(t)
	url := site(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tests := []struct {
		name     string
		opt      chromium.LoadOptions
		wantLate bool
	}{
		{"virtual time", chromium.LoadOptions{VirtualTime: 15 * time.Second}, true},
		{"load event", chromium.LoadOptions{}, false},
		{"virtual time sized", chromium.LoadOptions{VirtualTime: 15 * time.Second, Width: 640, Height: 360}, true},
	}
	var wg sync.WaitGroup
	for _, tt := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			p, err := b.Load(ctx, url, tt.opt)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				return
			}
			defer p.Close()
			dom, err := p.DOM(ctx)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				return
			}
			if !strings.HasPrefix(dom, "<!DOCTYPE html>\n<html>") || !strings.Contains(dom, `<p id="a">static</p>`) {
				t.Errorf("%s: DOM %q; want the doctype and the static paragraph", tt.name, dom)
			}
			if got := strings.Contains(dom, "after the timer"); got != tt.wantLate {
				t.Errorf("%s: DOM holds the timer's line: %v; want %v\n%s", tt.name, got, tt.wantLate, dom)
			}
			var title string
			if err := p.Eval(ctx, "document.title", &title); err != nil || title != "t" {
				t.Errorf("%s: Eval(document.title) = %q, %v; want \"t\"", tt.name, title, err)
			}
			if tt.opt.Width == 0 {
				return
			}
			png, err := p.Screenshot(ctx)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				return
			}
			// The PNG header: signature, IHDR length and type, width, height.
			if len(png) < 24 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("%s: screenshot is not a PNG (%d bytes)", tt.name, len(png))
				return
			}
			if w, h := binary.BigEndian.Uint32(png[16:20]), binary.BigEndian.Uint32(png[20:24]); w != uint32(tt.opt.Width) || h != uint32(tt.opt.Height) {
				t.Errorf("%s: screenshot %dx%d; want %dx%d", tt.name, w, h, tt.opt.Width, tt.opt.Height)
			}
			t.Logf("%s: %v", tt.name, time.Since(start))
		}()
	}
	wg.Wait()
}

// TestLoadErrors: an expression that throws is an error naming it, and a
// closed browser refuses new pages.
func TestLoadErrors(t *testing.T) {
	b := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := b.Load(ctx, site(t), chromium.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := p.Eval(ctx, "no_such_name.x", &v); err == nil || !strings.Contains(err.Error(), "no_such_name") {
		t.Errorf("Eval of a throwing expression: err = %v; want an error naming no_such_name", err)
	}
	p.Close()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Load(ctx, "about:blank", chromium.LoadOptions{}); err == nil {
		t.Error("Load after Close: got nil error; want the browser closed")
	}
}

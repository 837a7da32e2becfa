// Command fakeopenai serves internal/fakeopenai's OpenAI-compatible fake
// on a loopback port, for scripts that walk through the CLI against an
// endpoint without a model (scripts/newuser.sh). It prints the API root
// ("http://127.0.0.1:PORT/v1") on stdout once it listens, then serves
// until it is killed.
//
//	fakeopenai [-addr 127.0.0.1:0] [-served NAME[,NAME...]] [-root WEIGHTS] [-fingerprint FP]
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/t2sbench/t2sbench/internal/fakeopenai"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0: a free one)")
	served := flag.String("served", "", "comma-separated model names the server knows; a request for another gets 404 \"model 'NAME' not found\" (empty: any)")
	root := flag.String("root", "", "answer GET /v1/models with the served names and this root (the weights vLLM serves); without it (and -served) that path gets 404")
	fingerprint := flag.String("fingerprint", "", "system_fingerprint of every answer (empty: none)")
	flag.Parse()
	var opts fakeopenai.Options
	if *served != "" {
		opts.Models = strings.Split(*served, ",")
	}
	opts.ListModels, opts.Root = *root != "" && *served != "", *root
	opts.SystemFingerprint = *fingerprint
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeopenai:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	if err := http.Serve(ln, fakeopenai.NewUnstarted(opts)); err != nil {
		fmt.Fprintln(os.Stderr, "fakeopenai:", err)
		os.Exit(1)
	}
}

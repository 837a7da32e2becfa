// Command fakeopenai serves internal/fakeopenai's OpenAI-compatible fake
// on a loopback port, for scripts that walk through the CLI against an
// endpoint without a model (scripts/newuser.sh). It prints the API root
// ("http://127.0.0.1:PORT/v1") on stdout once it listens, then serves
// until it is killed.
//
//	fakeopenai [-addr 127.0.0.1:0] [-served NAME[,NAME...]]
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
	flag.Parse()
	var opts fakeopenai.Options
	if *served != "" {
		opts.Models = strings.Split(*served, ",")
	}
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

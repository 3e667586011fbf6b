// Command rproxy is the baseline anth proxy's CPU is measured against
// (TestGatewayCPU): a plain httputil.ReverseProxy in front of an upstream,
// as a user would otherwise deploy one. It flushes an event stream after
// each write (ReverseProxy does for text/event-stream) and logs nothing.
// It keeps as many idle upstream connections as anth proxy does (100, not
// net/http's two a host), so that with 100 clients neither dials a new
// connection a stream and the comparison is of the relays, not of the
// pools.
//
//	rproxy LISTEN UPSTREAM
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: rproxy LISTEN UPSTREAM")
		os.Exit(2)
	}
	up, err := url.Parse(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = tr.MaxIdleConns
	rp := &httputil.ReverseProxy{Transport: tr, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(up)
		pr.Out.Host = up.Host
		// The request is read before it goes upstream, as anth proxy
		// reads it: streamed, about one response in 400 was cut on this
		// machine ("use of closed network connection" reading the
		// upstream's body), which would spoil the measurement.
		body, _ := io.ReadAll(pr.In.Body)
		pr.Out.Body = io.NopCloser(bytes.NewReader(body))
		pr.Out.ContentLength = int64(len(body))
	}}
	if err := http.ListenAndServe(os.Args[1], rp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

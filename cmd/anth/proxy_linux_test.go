package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestProxyConnectTimeout: an upstream that does not accept connections
// (a listen backlog of 0, already full, so Linux drops further SYNs) is
// answered 504 "upstream unreachable: connecting timed out" after
// --connect-timeout, and logged with fault connect_timeout.
func TestProxyConnectTimeout(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, _ := syscall.Getsockname(fd)
	addr := "127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
	filler, err := net.Dial("tcp", addr) // fills the backlog
	if err != nil {
		t.Fatal(err)
	}
	defer filler.Close()
	p := startProxy(t, nil, "--upstream", "http://"+addr, "--listen", "127.0.0.1:0", "--log-format", "json", "--connect-timeout", "300ms")
	resp, err := testClient.Do(newStreamRequest(t, "http://"+p.addr))
	if err != nil {
		t.Fatal(err)
	}
	if typ, msg := apiErrorOf(t, resp); resp.StatusCode != 504 || typ != "timeout_error" || msg != "upstream unreachable: connecting timed out" {
		t.Errorf("connect timeout: %d %s %q", resp.StatusCode, typ, msg)
	}
	if l := p.next("request"); l["status"] != 504.0 || l["fault"] != "connect_timeout" || !strings.Contains(fmt.Sprint(l["error"]), addr) {
		t.Errorf("connect timeout: log line %v", l)
	}
	p.stop()
}

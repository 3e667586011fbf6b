// Package redistest starts redis-server for tests: on a port of its own,
// with no persistence, stopped when the test ends. A test that needs Redis
// fails, never skips, when redis-server is missing (.ci/run installs it).
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a redis-server a test started.
type Server struct {
	t    testing.TB
	Addr string // host:port
	port int
	cmd  *exec.Cmd
}

// Start starts redis-server on a free port and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is needed (apt-get install -y redis-server): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{t: t, Addr: "127.0.0.1:" + strconv.Itoa(port), port: port}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) start() {
	s.t.Helper()
	// No persistence (--save "" and no AOF): a restart starts empty, as
	// the fault tests state.
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := s.ping(); err == nil {
			return
		} else if time.Now().After(deadline) {
			s.Stop()
			s.t.Fatalf("redis-server on %s did not answer: %v", s.Addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *Server) ping() error {
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop kills the server and waits for it; it may be called more than once.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill() // SIGKILL ends a paused process too
	s.cmd.Wait()
	s.cmd = nil
}

// Pause stops the server's process (SIGSTOP): its connections stay open
// and nothing answers, as with a server that hangs or a network that
// drops packets. Resume continues it.
func (s *Server) Pause() { s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

// Restart kills the server and starts it again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Do sends one command in Redis's inline form and returns the first line
// of the reply (enough for INFO's and MEMORY USAGE's integers).
func (s *Server) Do(args ...string) string {
	s.t.Helper()
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		s.t.Fatal(err)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		s.t.Fatal(err)
	}
	line = strings.TrimRight(line, "\r\n")
	if strings.HasPrefix(line, "$") { // a bulk string: read it whole
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return ""
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			s.t.Fatal(err)
		}
		return string(buf[:n])
	}
	return line
}

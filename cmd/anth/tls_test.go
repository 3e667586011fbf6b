package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// to dir, and returns their paths and a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "anth proxy test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	return certFile, keyFile, pool
}

// TestProxyTLS: with --tls-cert and --tls-key the proxy serves HTTPS and
// speaks HTTP/2 to a client that offers it, with ANTH in anth-deflate
// (Content-Encoding) and in its browser form (Accept's coding parameter)
// read whole over it, and SSE too.
func TestProxyTLS(t *testing.T) {
	upstream := textUpstream(t)
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json", "--tls-cert", certFile, "--tls-key", keyFile)
	client := &http.Client{Timeout: logWait, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true, DisableCompression: true}}
	for _, c := range []struct {
		name, accept, acceptEncoding string
		kind, coding                 string
	}{
		{"anth-deflate", anthclient.Accept, deflate.Encoding, "anth", "anth-deflate"},
		{"anth-deflate by Accept", anthhttp.ContentType + ";coding=" + deflate.Encoding, "", "anth", "anth-deflate"},
		{"sse", "text/event-stream", "", "sse", ""},
	} {
		req := newStreamRequest(t, "https://"+p.addr)
		req.Header.Set("Accept", c.accept)
		if c.acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", c.acceptEncoding)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.ProtoMajor != 2 {
			t.Errorf("%s: %s, want HTTP/2", c.name, resp.Proto)
		}
		fr, err := anthclient.NewFrameReader(resp, messages.API{})
		if err != nil {
			t.Fatal(err)
		}
		last, err := lastFrame(fr)
		resp.Body.Close()
		if err != nil || last.Type != frame.TypeDone {
			t.Errorf("%s: the stream ends with %v, %v; want DONE", c.name, last.Type, err)
		}
		if l := p.next("request"); l["kind"] != c.kind || l["coding"] != c.coding || l["end"] != "done" {
			t.Errorf("%s: log line %v", c.name, l)
		}
	}
	if resp, err := testClient.Get("http://" + p.addr + "/healthz"); err == nil && resp.StatusCode == 200 {
		t.Errorf("plain HTTP served on the TLS address")
	}
	if resp, err := client.Get("https://" + p.addr + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/healthz over TLS: %v %v", resp, err)
	}
	p.stop()
}

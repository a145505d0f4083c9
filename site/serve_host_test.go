package site

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAllowedHost: serve answers only requests for the address it
// listens on (DNS-rebinding protection).
func TestAllowedHost(t *testing.T) {
	loop := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8080}
	any4 := &net.TCPAddr{IP: net.IPv4zero, Port: 8080}
	lan := &net.TCPAddr{IP: net.ParseIP("192.168.1.5"), Port: 8080}
	for _, tt := range []struct {
		addr *net.TCPAddr
		host string
		ok   bool
	}{
		{loop, "127.0.0.1:8080", true},
		{loop, "localhost:8080", true},
		{loop, "LOCALHOST:8080", true},
		{loop, "[::1]:8080", true},
		{loop, "evil.example:8080", false}, // a rebound DNS name
		{loop, "127.0.0.1.nip.io:8080", false},
		{loop, "127.0.0.1:8081", false},
		{loop, "localhost", false}, // port 80
		{loop, "", false},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}, "localhost", true},
		{any4, "10.0.0.7:8080", true},
		{any4, "evil.example:8080", false},
		{lan, "192.168.1.5:8080", true},
		{lan, "192.168.1.6:8080", false},
		{lan, "printer.lan:8080", false},
	} {
		if got := allowedHost(tt.addr, tt.host); got != tt.ok {
			t.Errorf("allowedHost(%v, %q) = %v, want %v", tt.addr, tt.host, got, tt.ok)
		}
	}
	h := hostGuard(loop, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret page")) }))
	for host, want := range map[string]int{"localhost:8080": 200, "attacker.example:8080": http.StatusMisdirectedRequest} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: status %d, want %d", host, rec.Code, want)
		}
	}
}

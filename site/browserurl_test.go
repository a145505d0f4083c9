package site

import (
	"net"
	"testing"
)

func TestBrowserURL(t *testing.T) {
	for _, tt := range []struct{ addr, want string }{
		{"127.0.0.1:8080", "http://127.0.0.1:8080/"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/"},
		{"[::]:9000", "http://[::1]:9000/"},
		{"[::1]:9000", "http://[::1]:9000/"},
		{"192.0.2.7:80", "http://192.0.2.7:80/"},
	} {
		a, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := browserURL(a); got != tt.want {
			t.Errorf("browserURL(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
}

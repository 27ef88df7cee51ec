package redistest

import (
	"net/url"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redisproc"
)

func TestStartAnswers(t *testing.T) {
	start := time.Now()
	s := Start(t)
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("Start took %v; the Docker check must not hang", took)
	}
	u, err := url.Parse(s.URL)
	if err != nil || u.Scheme != "redis" && u.Scheme != "rediss" || u.Host == "" {
		t.Fatalf("URL %q is not a redis URL", s.URL)
	}
	if s.Kind == KindProcess {
		if err := redisproc.Ping(s.Addr); err != nil {
			t.Fatalf("PING %s: %v", s.Addr, err)
		}
	}
	t.Logf("kind %s at %s", s.Kind, s.Addr)
}

func TestProcessKillRestart(t *testing.T) {
	s := StartProcess(t)
	if err := redisproc.Ping(s.Addr); err != nil {
		t.Fatalf("PING after start: %v", err)
	}
	s.Kill(t)
	if s.Running() {
		t.Error("Running after Kill")
	}
	if err := redisproc.Ping(s.Addr); err == nil {
		t.Fatal("PING answered after Kill")
	}
	s.Restart(t)
	if !s.Running() {
		t.Error("not Running after Restart")
	}
	if err := redisproc.Ping(s.Addr); err != nil {
		t.Fatalf("PING after Restart: %v", err)
	}
}

func TestDockerCheckIsQuick(t *testing.T) {
	start := time.Now()
	err := dockerAnswers()
	if took := time.Since(start); took > 6*time.Second {
		t.Errorf("docker check took %v", took)
	}
	t.Logf("docker: %v", err)
}

func TestTwoProcessesAreApart(t *testing.T) {
	a, b := StartProcess(t), StartProcess(t)
	if a.Addr == b.Addr {
		t.Fatalf("two servers on one address %s", a.Addr)
	}
}

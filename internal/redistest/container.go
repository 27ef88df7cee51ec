package redistest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcredis "github.com/testcontainers/testcontainers-go/modules/redis"
)

// Image is the Redis image a container is started from.
const Image = "redis:7-alpine"

var (
	dockerOnce sync.Once
	dockerErr  error
)

// dockerAnswers reports whether a Docker engine answers, within 3 s and once
// per test binary. Setting REDISTEST_NO_DOCKER=1 skips the check.
func dockerAnswers() error {
	dockerOnce.Do(func() {
		if os.Getenv("REDISTEST_NO_DOCKER") != "" {
			dockerErr = fmt.Errorf("REDISTEST_NO_DOCKER is set")
			return
		}
		if !dockerEndpointLikely() {
			dockerErr = fmt.Errorf("no DOCKER_HOST and no Docker socket")
			return
		}
		done := make(chan error, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- fmt.Errorf("testcontainers panicked: %v", r)
				}
			}()
			p, err := testcontainers.NewDockerProvider()
			if err != nil {
				done <- err
				return
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			done <- p.Health(ctx)
		}()
		select {
		case dockerErr = <-done:
		case <-time.After(4 * time.Second):
			dockerErr = fmt.Errorf("the Docker engine did not answer within 4s")
		}
	})
	return dockerErr
}

// dockerEndpointLikely is a quick look for somewhere a Docker engine could
// answer, so that a machine with only the client never waits.
func dockerEndpointLikely() bool {
	if os.Getenv("DOCKER_HOST") != "" || os.Getenv("TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE") != "" {
		return true
	}
	home, _ := os.UserHomeDir()
	for _, p := range []string{
		"/var/run/docker.sock",
		filepath.Join(home, ".docker", "run", "docker.sock"),
		filepath.Join(home, ".docker", "desktop", "docker.sock"),
		fmt.Sprintf("/run/user/%d/docker.sock", os.Getuid()),
	} {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return true
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".testcontainers.properties")); err == nil {
		return true
	}
	return false
}

// startContainer starts a Redis container, or returns nil (after logging why)
// so that the caller falls back to a process.
func startContainer(t testing.TB) *Server {
	t.Helper()
	if err := dockerAnswers(); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ctr, err := tcredis.Run(ctx, Image)
	if ctr != nil {
		t.Cleanup(func() { _ = testcontainers.TerminateContainer(ctr) })
	}
	if err != nil {
		t.Logf("redistest: a Docker engine answers but the Redis container did not start (%v); trying a redis-server process", err)
		return nil
	}
	u, err := ctr.ConnectionString(ctx)
	if err != nil {
		t.Logf("redistest: container connection string: %v; trying a redis-server process", err)
		return nil
	}
	host, err := ctr.Host(ctx)
	if err != nil {
		return nil
	}
	port, err := ctr.MappedPort(ctx, "6379/tcp")
	if err != nil {
		return nil
	}
	return &Server{URL: u + "/0", Addr: fmt.Sprintf("%s:%s", host, port.Port()), Kind: KindContainer}
}

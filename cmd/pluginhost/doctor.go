package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/client"
	"github.com/surfsense/pluginhost/registry"
)

// doctor checks a running host the way the SurfSense app would and exits
// non-zero when anything is wrong.
func doctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hostURL := fs.String("host", "https://plugins.surfsense.com", "the plugin host to check")
	key := fs.String("license", "", "the license key to call with (or SURFSENSE_LICENSE_KEY); never printed")
	pub := fs.String("registry-key", "", "PEM public key file /plugins.json must be signed with")
	issuer := fs.String("registry-issuer", "", "keyless: the OIDC issuer /plugins.json's signature must name")
	identity := fs.String("registry-identity", "", "keyless: an anchored regular expression for the signer's identity")
	timeout := fs.Duration("timeout", 2*time.Minute, "the whole check's limit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *key == "" {
		*key = os.Getenv("SURFSENSE_LICENSE_KEY")
	}
	if strings.TrimSpace(*key) == "" {
		fmt.Fprintln(stderr, "pluginhost doctor: give the license key with --license KEY or SURFSENSE_LICENSE_KEY")
		return 2
	}
	opts := client.DoctorOptions{Host: *hostURL, License: *key}
	if *pub != "" {
		b, err := os.ReadFile(*pub)
		if err != nil {
			fmt.Fprintf(stderr, "pluginhost doctor: --registry-key: %v\n", err)
			return 2
		}
		opts.Trust.PublicKey = b
	}
	opts.Trust.Issuer, opts.Trust.Identity = *issuer, *identity
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	ok, err := client.Doctor(ctx, opts, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost doctor: %v\n", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

func registryCmd(args []string, stdout, stderr io.Writer) int {
	return registry.Main(args, stdout, stderr)
}

package registry

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

// Paths of the lists in the repository, relative to its root.
const (
	FirstPartyPath = "registry/first_party/plugins.json"
	RegistryPath   = "registry/plugins.json"
)

const cliUsage = `usage: pluginhost registry <command> [flags]

Commands:
  check   [--first-party PATH] [--registry PATH] [--previous PATH]
          Check both lists (default: the repository's files) and, with
          --previous (the base branch's registry), that no id vanished or came
          back and that generated_at moved on. Exit 1 listing every problem.
  keygen  --out PREFIX
          Write a new ECDSA P-256 key pair: PREFIX.key (PEM, mode 0600) and
          PREFIX.pub.
  sign    --key PREFIX.key FILE
  sign    --keyless [--identity-token TOKEN | --identity-token-file PATH]
          [--fulcio-url URL] [--rekor-url URL] [--rekor-version 1|2]
          [--tsa-url URL] [--trusted-root PATH] FILE
          Write FILE.sigstore.json. Keyless takes the OIDC token from the flag,
          SIGSTORE_ID_TOKEN, or GitHub Actions (permissions id-token: write).
  verify  --key PREFIX.pub [--bundle PATH] FILE
  verify  --issuer URL --identity REGEXP [--trusted-root PATH] [--bundle PATH] FILE
          Exit 0 only when FILE verifies. The identity is a regular
          expression anchored with ^ and $; the trusted root defaults to the
          Sigstore public-good root built in.
`

// Main runs `pluginhost registry <args>`: args start with the command
// (check, keygen, sign, verify). It returns the exit code: 0 on success, 1
// when a check or verification fails (every problem listed on stderr), 2 on
// a usage error.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, cliUsage)
		return 2
	}
	switch args[0] {
	case "check":
		return cliCheck(args[1:], stdout, stderr)
	case "keygen":
		return cliKeygen(args[1:], stdout, stderr)
	case "sign":
		return cliSign(args[1:], stdout, stderr)
	case "verify":
		return cliVerify(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, cliUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "pluginhost registry: unknown command %q\n\n%s", args[0], cliUsage)
		return 2
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("pluginhost registry "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, cliUsage) }
	return fs
}

// parseArgs parses flags given before or after the positional arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func cliCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", stderr)
	root := repoRoot()
	fpPath := fs.String("first-party", filepath.Join(root, FirstPartyPath), "the first-party list")
	regPath := fs.String("registry", filepath.Join(root, RegistryPath), "the registry")
	prevPath := fs.String("previous", "", "the registry it replaces (the base branch's), to check ids are never reused")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "pluginhost registry check: unexpected argument %q\n", rest[0])
		return 2
	}
	failed := false
	report := func(path string, ps Problems) {
		for _, p := range ps {
			fmt.Fprintf(stderr, "%s: %s\n", path, p)
		}
		if len(ps) > 0 {
			failed = true
		}
	}
	fp, fpProblems := checkFile(FirstParty, *fpPath)
	reg, regProblems := checkFile(ThirdParty, *regPath)
	report(*fpPath, fpProblems)
	report(*regPath, regProblems)
	if fp != nil && reg != nil {
		report(*regPath, CheckAcross(fp, reg))
	}
	if *prevPath != "" && reg != nil {
		data, err := os.ReadFile(*prevPath)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "%s: reading the previous registry: %v\n", *prevPath, err)
			failed = true
		default:
			// The previous list is read leniently: it passed when it was
			// merged, and rules may have grown since.
			prev, ps := Check(ThirdParty, data, nil)
			if len(ps) > 0 && prev.GeneratedAt.IsZero() {
				fmt.Fprintf(stderr, "%s: the previous registry cannot be read: %s\n", *prevPath, ps[0])
				failed = true
			} else {
				report(*regPath, CheckHistory(prev, reg))
			}
		}
	}
	if failed {
		fmt.Fprintln(stderr, "pluginhost registry check: FAILED")
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%d plugins)\n", *fpPath, len(fp.Plugins))
	fmt.Fprintf(stdout, "%s: ok (%d plugins, %d removed)\n", *regPath, len(reg.Plugins), len(reg.Removed))
	return 0
}

// checkFile reads and checks one list with the icons folder beside it. The
// list is nil when the file cannot be read.
func checkFile(kind Kind, path string) (*List, Problems) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Problems{{Entry: ListLabel, Field: "(file)", Message: err.Error()}}
	}
	list, ps := Check(kind, data, os.DirFS(filepath.Join(filepath.Dir(path), "icons")))
	return list, ps
}

// repoRoot finds the repository root (the folder whose go.mod is this
// module's) from the working directory up; "." when there is none.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/surfsense/pluginhost") {
			rel, err := filepath.Rel(mustGetwd(), dir)
			if err != nil {
				return dir
			}
			return rel
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

func cliKeygen(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("keygen", stderr)
	out := fs.String("out", "", "path prefix of the key files")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if *out == "" || len(rest) > 0 {
		fmt.Fprintln(stderr, "pluginhost registry keygen: give --out PREFIX and nothing else")
		return 2
	}
	keyPath, pubPath, err := Keygen(*out)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost registry %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (private, mode 0600: keep it secret) and %s (public)\n", keyPath, pubPath)
	return 0
}

func cliSign(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sign", stderr)
	key := fs.String("key", "", "the private key (PEM) for key-pair signing")
	keyless := fs.Bool("keyless", false, "sign keyless: OIDC token, Fulcio certificate, Rekor entry")
	token := fs.String("identity-token", "", "the OIDC token for keyless signing")
	tokenFile := fs.String("identity-token-file", "", "a file holding the OIDC token")
	fulcio := fs.String("fulcio-url", DefaultFulcioURL, "Fulcio's origin")
	rekor := fs.String("rekor-url", DefaultRekorURL, "Rekor's origin")
	rekorVersion := fs.Uint("rekor-version", 1, "Rekor's API version, 1 or 2 (2 needs --tsa-url)")
	tsa := fs.String("tsa-url", "", "an RFC 3161 timestamp authority's URL (optional)")
	trustedRoot := fs.String("trusted-root", "", "the trusted_root.json the new bundle is checked against (default: the public-good root built in)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "pluginhost registry sign: give exactly one FILE to sign")
		return 2
	}
	file := rest[0]
	if (*key == "") == !*keyless {
		fmt.Fprintln(stderr, "pluginhost registry sign: give --key PREFIX.key or --keyless")
		return 2
	}
	if *key != "" {
		path, err := SignFile(*key, file)
		if err != nil {
			fmt.Fprintf(stderr, "pluginhost registry sign: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
		return 0
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := KeylessOptions{
		FulcioURL: *fulcio, RekorURL: *rekor, RekorVersion: uint32(*rekorVersion), TSAURL: *tsa,
		Timeout: 60 * time.Second,
	}
	if opts.IDToken, err = keylessToken(ctx, *token, *tokenFile); err != nil {
		fmt.Fprintf(stderr, "pluginhost registry sign: %v\n", err)
		return 1
	}
	if *trustedRoot != "" {
		if opts.TrustedRoot, err = readLimited(*trustedRoot, 4<<20); err != nil {
			fmt.Fprintf(stderr, "pluginhost registry sign: reading the trusted root: %v\n", err)
			return 1
		}
	}
	path, err := SignKeyless(ctx, opts, file)
	if err != nil {
		fmt.Fprintf(stderr, "pluginhost registry sign: %v\n", err)
		return 1
	}
	b, _ := os.ReadFile(path)
	issuer, identity, _ := BundleIdentity(b)
	fmt.Fprintf(stdout, "wrote %s (signed as %s, issuer %s)\n", path, identity, issuer)
	return 0
}

// keylessToken finds the OIDC token: the flag, the file, SIGSTORE_ID_TOKEN,
// then GitHub Actions.
func keylessToken(ctx context.Context, flagToken, file string) (string, error) {
	if flagToken != "" {
		return flagToken, nil
	}
	if file != "" {
		data, err := readLimited(file, 64<<10)
		if err != nil {
			return "", fmt.Errorf("reading the OIDC token: %w", err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	if t := strings.TrimSpace(os.Getenv("SIGSTORE_ID_TOKEN")); t != "" {
		return t, nil
	}
	if os.Getenv("ACTIONS_ID_TOKEN_REQUEST_URL") != "" {
		return GitHubActionsIDToken(ctx, nil, nil, "sigstore")
	}
	return "", errors.New("keyless signing needs an OIDC token: --identity-token, --identity-token-file, SIGSTORE_ID_TOKEN, or a GitHub Actions job with permissions id-token: write")
}

func cliVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify", stderr)
	key := fs.String("key", "", "the public key (PEM) the file must be signed with")
	issuer := fs.String("issuer", "", "keyless: the OIDC issuer, exactly")
	identity := fs.String("identity", "", "keyless: the identity, a regular expression anchored with ^ and $")
	trustedRoot := fs.String("trusted-root", "", "keyless: a trusted_root.json (default: the public-good root built in)")
	bundlePath := fs.String("bundle", "", "the bundle (default: FILE.sigstore.json)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "pluginhost registry verify: give exactly one FILE to verify")
		return 2
	}
	file := rest[0]
	var t Trust
	switch {
	case *key != "" && (*issuer != "" || *identity != ""):
		fmt.Fprintln(stderr, "pluginhost registry verify: give --key, or --issuer and --identity, not both")
		return 2
	case *key != "":
		if t.PublicKey, err = readLimited(*key, 64<<10); err != nil {
			fmt.Fprintf(stderr, "pluginhost registry verify: reading the public key: %v\n", err)
			return 1
		}
	case *issuer != "" && *identity != "":
		t.Issuer, t.Identity = *issuer, *identity
		if *trustedRoot != "" {
			if t.TrustedRoot, err = readLimited(*trustedRoot, 4<<20); err != nil {
				fmt.Fprintf(stderr, "pluginhost registry verify: reading the trusted root: %v\n", err)
				return 1
			}
		}
	default:
		fmt.Fprintln(stderr, "pluginhost registry verify: give --key PREFIX.pub, or --issuer and --identity")
		return 2
	}
	if err := VerifyFile(t, file, *bundlePath); err != nil {
		fmt.Fprintf(stderr, "pluginhost registry verify: %s: %v\n", file, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: verified (%s)\n", file, t)
	return 0
}

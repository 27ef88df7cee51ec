package host

import (
	"fmt"
	"log/slog"

	"github.com/surfsense/pluginhost/license"
)

// newBackend is the license backend LICENSE_BACKEND chooses.
func newBackend(cfg Config, log *slog.Logger) (license.Backend, error) {
	switch cfg.License.Backend {
	case "dev":
		return license.Dev{}, nil
	case "file":
		return license.NewFile(cfg.License.KeysFile, log)
	case "keygen":
		return license.NewKeygen(cfg.License.KeygenURL, cfg.License.KeygenAccount)
	}
	return nil, fmt.Errorf("LICENSE_BACKEND=%q: choose keygen, file or dev", cfg.License.Backend)
}

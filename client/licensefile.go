package client

import "time"

// License is the license imported into the app, read each time it is
// needed: its key is never stored on a plugin.
type License interface {
	// LicenseKey returns the key, "" when no license is imported.
	LicenseKey() string
	// LicenseExpiry returns the license file's expiry, the zero time when
	// it names none. It is only a hint of when to ask the plugin host.
	LicenseExpiry() time.Time
}

// StaticLicense is a [License] with a fixed key and expiry. The zero value
// is no license.
type StaticLicense struct {
	Key    string
	Expiry time.Time
}

// LicenseKey implements [License].
func (l StaticLicense) LicenseKey() string { return l.Key }

// LicenseExpiry implements [License].
func (l StaticLicense) LicenseExpiry() time.Time { return l.Expiry }

// String never shows the key.
func (l StaticLicense) String() string {
	if l.Key == "" {
		return "no license"
	}
	return "license (key hidden)"
}

// GoString never shows the key, even with %#v.
func (l StaticLicense) GoString() string { return "client.StaticLicense{" + l.String() + "}" }

package client

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// KeySize is the size of a [FileStore]'s key: AES-256.
const KeySize = 32

// NewKey returns a new random key for a [FileStore].
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, nil
}

// FileStore is a [Store] kept in one JSON file, rewritten whole and
// atomically (a temporary file renamed over it) at every change, with mode
// 0600. Credentials are encrypted at rest with AES-256-GCM under the key the
// caller gives, each bound to its plugin's id; nothing else is secret. One
// process owns the file at a time.
//
// Use [OpenFileStore]; the zero value is not usable.
type FileStore struct {
	path string
	aead cipher.AEAD

	mu  sync.Mutex // held across a change and its write
	mem MemoryStore
}

const fileStoreVersion = 1

type fileData struct {
	Version          int            `json:"version"`
	InstalledPlugins []filePlugin   `json:"installed_plugins"`
	PluginTools      []PluginTool   `json:"plugin_tools"`
	PluginSettings   PluginSettings `json:"plugin_settings"`
}

type filePlugin struct {
	InstalledPlugin
	CredentialCiphertext string `json:"credential_ciphertext,omitempty"`
}

// OpenFileStore opens the store kept at path, creating it at the first
// change when it does not exist. key is the [KeySize]-byte key its
// credentials are encrypted with; a file written with another key fails to
// open, naming the plugin whose credential did not decrypt.
func OpenFileStore(path string, key []byte) (*FileStore, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("plugin store key: want %d bytes (AES-256), got %d; make one with NewKey", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	s := &FileStore{path: path, aead: aead}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugin store: %w", err)
	}
	if err := s.load(data); err != nil {
		return nil, fmt.Errorf("plugin store %s: %w", path, err)
	}
	return s, nil
}

func (s *FileStore) load(data []byte) error {
	var fd fileData
	if err := json.Unmarshal(data, &fd); err != nil {
		return fmt.Errorf("not a plugin store file (%v); restore it from a backup or move it away", err)
	}
	if fd.Version != fileStoreVersion {
		return fmt.Errorf("version %d, this build reads version %d", fd.Version, fileStoreVersion)
	}
	m := &s.mem
	m.init()
	for _, fp := range fd.InstalledPlugins {
		p := fp.InstalledPlugin
		if p.ID == "" {
			return errors.New("a plugin row has no id")
		}
		if _, dup := m.plugins[p.ID]; dup {
			return fmt.Errorf("plugin %q appears twice", p.ID)
		}
		if fp.CredentialCiphertext != "" {
			plain, err := s.open(p.ID, fp.CredentialCiphertext)
			if err != nil {
				return err
			}
			p.Credential = plain
		}
		if err := m.putPluginLocked(p); err != nil {
			return fmt.Errorf("plugin %q: %w", p.ID, err)
		}
	}
	byPlugin := map[string][]PluginTool{}
	for _, t := range fd.PluginTools {
		if _, ok := m.plugins[t.PluginID]; !ok {
			return fmt.Errorf("tool %q belongs to no plugin (%q)", t.Name, t.PluginID)
		}
		if len(t.InputSchema) > 0 {
			// The file is indented; the schema is kept as the server sent it.
			var b bytes.Buffer
			if err := json.Compact(&b, t.InputSchema); err == nil {
				t.InputSchema = b.Bytes()
			}
		}
		byPlugin[t.PluginID] = append(byPlugin[t.PluginID], t)
	}
	for id, ts := range byPlugin {
		if err := m.putToolsLocked(id, ts); err != nil {
			return err
		}
	}
	m.settings = fd.PluginSettings
	return nil
}

func credentialAD(pluginID string) []byte {
	return []byte("surfsense-plugin-credential\x00" + pluginID)
}

func (s *FileStore) seal(pluginID, plain string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	ct := s.aead.Seal(nonce, nonce, []byte(plain), credentialAD(pluginID))
	return base64.StdEncoding.EncodeToString(ct), nil
}

func (s *FileStore) open(pluginID, sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize()+s.aead.Overhead() {
		return "", fmt.Errorf("the credential of plugin %q is damaged", pluginID)
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], credentialAD(pluginID))
	if err != nil {
		return "", fmt.Errorf("the credential of plugin %q does not decrypt: wrong key, or a damaged file", pluginID)
	}
	return string(plain), nil
}

// snapshot and restore let a change be undone when its write fails.
type memSnapshot struct {
	plugins  map[string]InstalledPlugin
	tools    map[string][]PluginTool
	settings PluginSettings
}

func (s *FileStore) snapshot() memSnapshot {
	m := &s.mem
	m.init()
	sn := memSnapshot{plugins: map[string]InstalledPlugin{}, tools: map[string][]PluginTool{}, settings: m.settings}
	for k, v := range m.plugins {
		sn.plugins[k] = v
	}
	for k, v := range m.tools {
		sn.tools[k] = v
	}
	return sn
}

func (s *FileStore) restore(sn memSnapshot) {
	s.mem.plugins, s.mem.tools, s.mem.settings = sn.plugins, sn.tools, sn.settings
}

// change applies fn to the memory copy under the store's lock and writes the
// file; when the write fails the change is undone.
func (s *FileStore) change(ctx context.Context, fn func(m *MemoryStore) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sn := s.snapshot()
	s.mem.mu.Lock()
	err := fn(&s.mem)
	s.mem.mu.Unlock()
	if err != nil {
		s.restore(sn)
		return err
	}
	if err := s.write(); err != nil {
		s.restore(sn)
		return err
	}
	return nil
}

func (s *FileStore) write() error {
	ctx := context.Background()
	plugins, _ := s.mem.Plugins(ctx)
	fd := fileData{Version: fileStoreVersion, InstalledPlugins: []filePlugin{}, PluginTools: []PluginTool{}}
	for _, p := range plugins {
		fp := filePlugin{InstalledPlugin: p}
		if p.Credential != "" {
			sealed, err := s.seal(p.ID, p.Credential)
			if err != nil {
				return err
			}
			fp.CredentialCiphertext = sealed
		}
		fd.InstalledPlugins = append(fd.InstalledPlugins, fp)
		ts, _ := s.mem.Tools(ctx, p.ID)
		fd.PluginTools = append(fd.PluginTools, ts...)
	}
	fd.PluginSettings, _ = s.mem.Settings(ctx)
	data, err := json.MarshalIndent(fd, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(s.path, append(data, '\n'))
}

// writeFileAtomic writes data to a temporary file beside path, mode 0600,
// syncs it and renames it over path, so a reader sees the old file or the
// new one, never a part.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("plugin store: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("plugin store: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("plugin store: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("plugin store: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("plugin store: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("plugin store: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("plugin store: %w", err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Plugins implements [Store].
func (s *FileStore) Plugins(ctx context.Context) ([]InstalledPlugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Plugins(ctx)
}

// Plugin implements [Store].
func (s *FileStore) Plugin(ctx context.Context, id string) (InstalledPlugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Plugin(ctx, id)
}

// PutPlugin implements [Store].
func (s *FileStore) PutPlugin(ctx context.Context, p InstalledPlugin) error {
	return s.change(ctx, func(m *MemoryStore) error { return m.putPluginLocked(p) })
}

// DeletePlugin implements [Store].
func (s *FileStore) DeletePlugin(ctx context.Context, id string) error {
	return s.change(ctx, func(m *MemoryStore) error {
		m.init()
		if _, ok := m.plugins[id]; !ok {
			return ErrNotFound
		}
		delete(m.plugins, id)
		delete(m.tools, id)
		return nil
	})
}

// Tools implements [Store].
func (s *FileStore) Tools(ctx context.Context, pluginID string) ([]PluginTool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Tools(ctx, pluginID)
}

// PutTools implements [Store].
func (s *FileStore) PutTools(ctx context.Context, pluginID string, tools []PluginTool) error {
	return s.change(ctx, func(m *MemoryStore) error { return m.putToolsLocked(pluginID, tools) })
}

// Settings implements [Store].
func (s *FileStore) Settings(ctx context.Context) (PluginSettings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Settings(ctx)
}

// PutSettings implements [Store].
func (s *FileStore) PutSettings(ctx context.Context, st PluginSettings) error {
	return s.change(ctx, func(m *MemoryStore) error { m.settings = st; return nil })
}

package client

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// MemoryStore is a [Store] in this process's memory. The zero value is an
// empty store, ready to use.
type MemoryStore struct {
	mu       sync.Mutex
	plugins  map[string]InstalledPlugin
	tools    map[string][]PluginTool
	settings PluginSettings
}

func (s *MemoryStore) init() {
	if s.plugins == nil {
		s.plugins = map[string]InstalledPlugin{}
		s.tools = map[string][]PluginTool{}
	}
}

// Plugins implements [Store].
func (s *MemoryStore) Plugins(ctx context.Context) ([]InstalledPlugin, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]InstalledPlugin, 0, len(s.plugins))
	for _, p := range s.plugins {
		out = append(out, p.clone())
	}
	slices.SortFunc(out, func(a, b InstalledPlugin) int {
		return cmp.Or(a.ConnectedAt.Compare(b.ConnectedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Plugin implements [Store].
func (s *MemoryStore) Plugin(ctx context.Context, id string) (InstalledPlugin, error) {
	if err := ctx.Err(); err != nil {
		return InstalledPlugin{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.plugins[id]
	if !ok {
		return InstalledPlugin{}, ErrNotFound
	}
	return p.clone(), nil
}

// PutPlugin implements [Store].
func (s *MemoryStore) PutPlugin(ctx context.Context, p InstalledPlugin) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putPluginLocked(p)
}

func (s *MemoryStore) putPluginLocked(p InstalledPlugin) error {
	s.init()
	for id, q := range s.plugins {
		if id != p.ID && q.URL == p.URL {
			return ErrURLTaken
		}
	}
	s.plugins[p.ID] = p.clone()
	return nil
}

// DeletePlugin implements [Store].
func (s *MemoryStore) DeletePlugin(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.plugins[id]; !ok {
		return ErrNotFound
	}
	delete(s.plugins, id)
	delete(s.tools, id)
	return nil
}

// Tools implements [Store].
func (s *MemoryStore) Tools(ctx context.Context, pluginID string) ([]PluginTool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := s.tools[pluginID]
	out := make([]PluginTool, len(ts))
	for i, t := range ts {
		out[i] = t.clone()
	}
	return out, nil
}

// PutTools implements [Store].
func (s *MemoryStore) PutTools(ctx context.Context, pluginID string, tools []PluginTool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putToolsLocked(pluginID, tools)
}

func (s *MemoryStore) putToolsLocked(pluginID string, tools []PluginTool) error {
	s.init()
	if _, ok := s.plugins[pluginID]; !ok {
		return ErrNotFound
	}
	out := make([]PluginTool, len(tools))
	for i, t := range tools {
		t = t.clone()
		t.PluginID = pluginID
		out[i] = t
	}
	slices.SortStableFunc(out, func(a, b PluginTool) int { return cmp.Compare(a.Position, b.Position) })
	s.tools[pluginID] = out
	return nil
}

// Settings implements [Store].
func (s *MemoryStore) Settings(ctx context.Context) (PluginSettings, error) {
	if err := ctx.Err(); err != nil {
		return PluginSettings{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings, nil
}

// PutSettings implements [Store].
func (s *MemoryStore) PutSettings(ctx context.Context, st PluginSettings) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings = st
	return nil
}

// count returns how many plugins the store holds.
func (s *MemoryStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.plugins)
}

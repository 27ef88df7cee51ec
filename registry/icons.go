package registry

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// iconTypes maps an icon's extension to the exact content type it is served
// with.
var iconTypes = map[string]string{
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".webp": "image/webp",
}

// IconContentType returns the content type of an icon file name, or "" for a
// name that is not an icon's.
func IconContentType(name string) string {
	if !validIconName(name) {
		return ""
	}
	return iconTypes[path.Ext(name)]
}

// validIconName reports whether name is a plain icon file name: lowercase
// letters, digits, '_', '-' and single dots, ending in .svg, .png or .webp.
// It can never name a folder or step out of one.
func validIconName(name string) bool {
	return len(name) <= 100 && iconNamePattern.MatchString(name)
}

// checkIcon checks an entry's icon: a plain file name, present in icons
// (when icons is not nil), small, and holding what its extension says; an
// SVG must be inert.
func checkIcon(ps *Problems, label, name string, icons fs.FS) {
	if !validIconName(name) {
		ps.add(label, "icon", "%q must be a plain file name (a-z, 0-9, '_', '-', '.') ending in .svg, .png or .webp", clip(name))
		return
	}
	if icons == nil {
		return
	}
	data, err := readIcon(icons, name)
	if err != nil {
		ps.add(label, "icon", "%v", err)
		return
	}
	if err := checkIconContent(name, data); err != nil {
		ps.add(label, "icon", "%s: %v", name, err)
	}
}

// readIcon reads one icon file, refusing folders, other kinds of file and
// files over [MaxIconBytes].
func readIcon(icons fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(icons, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not in the icons folder", name)
		}
		return nil, fmt.Errorf("reading %s: %v", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if info.Size() > MaxIconBytes {
		return nil, fmt.Errorf("%s is %d bytes; the most is %d", name, info.Size(), MaxIconBytes)
	}
	f, err := icons.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxIconBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", name, err)
	}
	if len(data) > MaxIconBytes {
		return nil, fmt.Errorf("%s is over %d bytes", name, MaxIconBytes)
	}
	return data, nil
}

// checkIconContent checks that data is what name's extension says.
func checkIconContent(name string, data []byte) error {
	switch path.Ext(name) {
	case ".png":
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			return errors.New("is not a PNG image")
		}
	case ".webp":
		if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
			return errors.New("is not a WebP image")
		}
	case ".svg":
		return checkSVG(data)
	default:
		return errors.New("is not an .svg, .png or .webp file")
	}
	return nil
}

// svgForbidden are elements that run code, embed other documents or link
// out; an icon needs none of them.
var svgForbidden = map[string]bool{
	"script": true, "foreignobject": true, "iframe": true, "embed": true, "object": true,
	"audio": true, "video": true, "a": true, "handler": true, "listener": true,
	"style": true, "image": true, "feimage": true, "set": true, "animate": true,
	"animatemotion": true, "animatetransform": true, "animatecolor": true, "discard": true,
}

// loadsOutside reports whether an attribute value loads something from
// outside the file or runs code: url() of anything but #id, @import,
// expression(), javascript:.
func loadsOutside(v string) bool {
	v = strings.ToLower(v)
	if strings.Contains(v, "@import") || strings.Contains(v, "expression(") || strings.Contains(v, "javascript:") {
		return true
	}
	for {
		i := strings.Index(v, "url(")
		if i < 0 {
			return false
		}
		v = v[i+4:]
		if !strings.HasPrefix(strings.TrimLeft(v, " \t\n\r'\""), "#") {
			return true
		}
	}
}

// checkSVG checks that data is a well-formed SVG document that runs nothing
// and loads nothing: no scripts, event handlers, foreign objects, styles,
// embedded images, links or references outside the file, and no DTD (so no
// entities). The host also serves icons sandboxed; the app may show them
// inline, where only this check protects it.
func checkSVG(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		return nil, fmt.Errorf("is in %s; write it in UTF-8", charset)
	}
	depth := 0
	sawRoot := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("is not well-formed SVG: %v", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return errors.New("holds a DOCTYPE or other declaration; drop it")
		case xml.ProcInst:
			if t.Target != "xml" {
				return fmt.Errorf("holds the processing instruction <?%s?>; drop it", t.Target)
			}
		case xml.StartElement:
			if depth == 0 {
				if sawRoot {
					return errors.New("has more than one root element")
				}
				sawRoot = true
				if t.Name.Local != "svg" || t.Name.Space != "http://www.w3.org/2000/svg" {
					return errors.New(`is not an SVG document (root <svg xmlns="http://www.w3.org/2000/svg">)`)
				}
			}
			depth++
			if svgForbidden[strings.ToLower(t.Name.Local)] {
				return fmt.Errorf("holds a <%s> element; an icon draws shapes only", t.Name.Local)
			}
			for _, a := range t.Attr {
				name := strings.ToLower(a.Name.Local)
				switch {
				case strings.HasPrefix(name, "on"):
					return fmt.Errorf("holds the event handler %s=; an icon runs nothing", a.Name.Local)
				case name == "href" || name == "src":
					if !strings.HasPrefix(strings.TrimSpace(a.Value), "#") {
						return fmt.Errorf("refers to %q; an icon refers only to its own parts (#id)", clip(a.Value))
					}
				case loadsOutside(a.Value):
					return fmt.Errorf("attribute %s= loads or runs something; an icon refers only to its own parts (url(#id))", a.Name.Local)
				}
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return errors.New("has text outside the <svg> element")
			}
		}
	}
	if !sawRoot {
		return errors.New("is empty")
	}
	return nil
}

package config

import (
	"path/filepath"
	"sort"
	"strings"
)

// root is a directory of the configuration and the label it is shown as.
type root struct {
	dir, label string
}

// ConfigDirLabel is how messages show the directory of manent.yml, against
// which relative paths of the configuration resolve.
const ConfigDirLabel = "<config dir>"

// ShowPaths returns s with every absolute path under a directory of the
// configuration written after that directory's key instead:
// <work_dir>/hello-1/artifact, <envconfig.dir>/demo/hello/staging.yml,
// <config dir>/targets/hello. The most specific directory wins. The errors
// and log lines of a deploy say which file was involved, never where the
// server keeps its files.
func (c *Config) ShowPaths(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	for _, r := range c.roots() {
		s = replaceRoot(s, r.dir, r.label)
	}
	return s
}

// roots are the directories ShowPaths hides, the longest first; a
// directory that is also manent.yml's is shown as the latter.
func (c *Config) roots() []root {
	dir := filepath.Clean(c.Dir)
	candidates := []root{
		{c.Server.WorkDir, "<work_dir>"},
		{c.EnvConfig.Dir, "<envconfig.dir>"},
		{c.Artifacts.FileRoot, "<artifacts.file_root>"},
		{c.Secrets.FileRoot, "<secrets.file_root>"},
	}
	out := make([]root, 0, len(candidates)+1)
	for _, r := range candidates {
		if r.dir == "" || !filepath.IsAbs(r.dir) {
			continue
		}
		r.dir = filepath.Clean(r.dir)
		if r.dir != dir && r.dir != "/" {
			out = append(out, r)
		}
	}
	if c.Dir != "" && dir != "/" {
		out = append(out, root{dir, ConfigDirLabel})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].dir) > len(out[j].dir) })
	return out
}

// replaceRoot writes label for dir wherever dir starts a path of s: after
// a character that cannot be part of a path, and followed by / or by the
// end of the path.
func replaceRoot(s, dir, label string) string {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, dir)
		if i < 0 {
			if b.Len() == 0 {
				return s
			}
			b.WriteString(rest)
			return b.String()
		}
		end := i + len(dir)
		starts := i == 0 || !pathByte(rest[i-1])
		ends := end == len(rest) || rest[end] == '/' || !pathByte(rest[end])
		b.WriteString(rest[:i])
		if starts && ends {
			b.WriteString(label)
		} else {
			b.WriteString(dir)
		}
		rest = rest[end:]
	}
}

// pathByte reports whether b may continue a path's name.
func pathByte(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return strings.IndexByte("._-/~+@", b) >= 0
}

//go:build linux

package testhost

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The one npm package the registry serves.
const (
	npmName    = "pathgrant-test-pkg"
	npmVersion = "1.0.0"
)

// fixtureTime is the one timestamp every fixture carries, so a package is
// the same bytes on every run.
func fixtureTime() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }

// npmRegistry is a registry of one package: its packument and tarball, the
// two things `npm install` fetches.
type npmRegistry struct {
	packument []byte
	tarball   []byte
}

// tarballPath is where the registry serves the tarball, npm's own layout.
func (r *npmRegistry) tarballPath() string {
	return "/npm/" + npmName + "/-/" + npmName + "-" + npmVersion + ".tgz"
}

// newNPMRegistry builds the tarball and the packument naming it at
// baseURL (the host's https://ADDR), with the digests npm checks.
func newNPMRegistry(baseURL string) (*npmRegistry, error) {
	r := &npmRegistry{}
	tgz, err := npmTarball()
	if err != nil {
		return nil, err
	}
	r.tarball = tgz
	r.packument, err = npmPackument(baseURL+r.tarballPath(), tgz)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// routes serves the packument and the tarball.
func (r *npmRegistry) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /npm/"+npmName, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(r.packument)
	})
	mux.HandleFunc("GET "+r.tarballPath(), func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(r.tarball)
	})
}

// npmManifest is package.json: the same fields in the tarball and in the
// packument's version entry.
func npmManifest() map[string]any {
	return map[string]any{
		"name":        npmName,
		"version":     npmVersion,
		"description": "the pathgrant test host's npm package",
		"main":        "index.js",
		"license":     "MIT",
	}
}

// npmTarball is the package as npm packs it: files under package/.
func npmTarball() ([]byte, error) {
	manifest, err := json.MarshalIndent(npmManifest(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding package.json: %w", err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, body string }{
		{"package/package.json", string(manifest) + "\n"},
		{"package/index.js", "module.exports = 'hello from " + npmName + "';\n"},
	} {
		hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), ModTime: fixtureTime(), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("writing %s to the npm tarball: %w", f.name, err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			return nil, fmt.Errorf("writing %s to the npm tarball: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing the npm tarball: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("compressing the npm tarball: %w", err)
	}
	return buf.Bytes(), nil
}

// npmPackument is the registry document for the package, with the
// tarball's URL, its sha1 shasum and its sha512 integrity (npm refuses a
// tarball that matches neither).
func npmPackument(tarballURL string, tgz []byte) ([]byte, error) {
	sha1Sum := sha1.Sum(tgz)
	sha512Sum := sha512.Sum512(tgz)
	version := npmManifest()
	version["_id"] = npmName + "@" + npmVersion
	version["dist"] = map[string]any{
		"tarball":   tarballURL,
		"shasum":    hex.EncodeToString(sha1Sum[:]),
		"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sha512Sum[:]),
	}
	stamp := fixtureTime().Format(time.RFC3339)
	doc := map[string]any{
		"_id":       npmName,
		"name":      npmName,
		"dist-tags": map[string]string{"latest": npmVersion},
		"versions":  map[string]any{npmVersion: version},
		"time":      map[string]string{"created": stamp, "modified": stamp, npmVersion: stamp},
		"modified":  stamp,
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encoding the packument: %w", err)
	}
	return b, nil
}

package descriptor

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// MaxReleaseBytes bounds a release document: it may carry up to
// deploy.MaxReleaseDeploys descriptors inline, each up to MaxBytes.
const MaxReleaseBytes = 16 << 20

type rawRelease struct {
	APIVersion string      `yaml:"apiVersion"`
	Kind       string      `yaml:"kind"`
	ID         string      `yaml:"id"`
	OnFailure  string      `yaml:"onFailure"`
	Deploys    []rawMember `yaml:"deploys"`
}

type rawMember struct {
	Name string `yaml:"name"`
	File string `yaml:"file"`
	// Descriptor is the document as text; a mapping written inline is
	// turned into text before decoding (see inlineDescriptors).
	Descriptor string   `yaml:"descriptor"`
	After      []string `yaml:"after"`
}

// Kind returns the kind a document declares, as written, and KindDeployment
// when it declares none, so a caller can send a Release to ParseRelease and
// anything else to Parse. A document that cannot be read as a mapping is an
// EINVALID error.
func Kind(data []byte) (string, error) {
	root, fields := yamltree.Parse(data, MaxReleaseBytes)
	switch {
	case fields != nil:
		return "", invalid(fields)
	case root == nil:
		return "", invalid([]deploy.FieldError{{Message: "document is empty"}})
	case root.Kind != yaml.MappingNode:
		return "", invalid([]deploy.FieldError{{Message: "the document must be a mapping of fields (apiVersion, kind, ...)"}})
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "kind" {
			continue
		}
		v := root.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode {
			return "", invalid([]deploy.FieldError{{Path: "kind", Message: "must be a string"}})
		}
		if v.ShortTag() == "!!null" || v.Value == "" {
			return KindDeployment, nil
		}
		return v.Value, nil
	}
	return KindDeployment, nil
}

// ParseRelease reads a kind: Release document. Any problem yields an
// *deploy.Error with EINVALID listing every problem with its path
// (deploys[2].after[0]). It checks the release itself (names,
// dependencies, cycles); ValidateReleaseMembers checks its deploys once
// their descriptors are inline. onFailure defaults to stop.
func ParseRelease(data []byte) (*deploy.ReleaseDescriptor, error) {
	root, fields := yamltree.Parse(data, MaxReleaseBytes)
	if fields != nil {
		return nil, invalidRelease(fields)
	}
	if root == nil {
		return nil, invalidRelease([]deploy.FieldError{{Message: "document is empty"}})
	}
	if root.Kind != yaml.MappingNode {
		return nil, invalidRelease([]deploy.FieldError{{Message: "the release must be a mapping of fields (apiVersion, kind, id, deploys, ...)"}})
	}
	var errs yamltree.Errors
	inlineDescriptors(root, &errs)
	var raw rawRelease
	yamltree.Decode(root, "", &raw, &errs)
	checkRelease(&errs, &raw)
	if errs.Len() > 0 {
		return nil, invalidRelease(errs.List())
	}
	return raw.release(), nil
}

func invalidRelease(fields []deploy.FieldError) *deploy.Error {
	return &deploy.Error{Code: deploy.EINVALID, Message: "invalid release", Fields: fields}
}

// inlineDescriptors turns each deploys[i].descriptor written as a mapping
// (natural in YAML, and in JSON through the API) into the text of that
// mapping, which is what ReleaseMember.Descriptor holds.
func inlineDescriptors(root *yaml.Node, errs *yamltree.Errors) {
	deploys := mappingValue(root, "deploys")
	if deploys == nil || deploys.Kind != yaml.SequenceNode {
		return
	}
	for i, m := range deploys.Content {
		if m.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			v := m.Content[j+1]
			if m.Content[j].Value != "descriptor" || v.Kind != yaml.MappingNode {
				continue
			}
			text, err := encodeNode(v)
			if err != nil {
				errs.Add(yamltree.Index("deploys", i)+".descriptor", "cannot be read as a document: %v", err)
				continue
			}
			m.Content[j+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text}
		}
	}
}

func encodeNode(n *yaml.Node) (text string, err error) {
	// The encoder panics on some trees (an alias to an anchor outside the
	// mapping); a request must not take the server down.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	b, err := yaml.Marshal(n)
	return string(b), err
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func checkRelease(errs *yamltree.Errors, r *rawRelease) {
	switch {
	case r.APIVersion == "":
		required(errs, "apiVersion")
	case r.APIVersion != APIVersion:
		errs.Add("apiVersion", "must be %s", APIVersion)
	}
	switch {
	case r.Kind == "":
		required(errs, "kind")
	case r.Kind != KindRelease:
		errs.Add("kind", "must be %s", KindRelease)
	}
	switch {
	case r.ID == "":
		if !errs.Bad("id") {
			errs.Add("id", "is required: it is the idempotency key of the release")
		}
	case !idPattern.MatchString(r.ID):
		errs.Add("id", msgIDPattern)
	}
	switch r.OnFailure {
	case "", deploy.OnFailureStop, deploy.OnFailureContinue, deploy.OnFailureRollback:
	default:
		errs.Add("onFailure", "must be stop, continue or rollback")
	}
	checkMembers(errs, r)
}

func checkMembers(errs *yamltree.Errors, r *rawRelease) {
	switch {
	case len(r.Deploys) == 0:
		if !errs.Bad("deploys") {
			errs.Add("deploys", "is required: a release has at least one deploy")
		}
		return
	case len(r.Deploys) > deploy.MaxReleaseDeploys:
		errs.Add("deploys", "at most %d deploys are allowed, found %d", deploy.MaxReleaseDeploys, len(r.Deploys))
		return
	}
	index := make(map[string]int, len(r.Deploys))
	for i, m := range r.Deploys {
		p := yamltree.Index("deploys", i)
		checkMemberName(errs, p+".name", m.Name, index)
		if _, dup := index[m.Name]; !dup && m.Name != "" {
			index[m.Name] = i
		}
		switch {
		case errs.Bad(p) || errs.Bad(p+".file") || errs.Bad(p+".descriptor"):
		case m.File != "" && m.Descriptor != "":
			errs.Add(p, "give either file or descriptor, not both")
		case m.File == "" && m.Descriptor == "":
			errs.Add(p, "needs file (a descriptor file, relative to the release) or descriptor (the descriptor inline)")
		}
		if m.File != "" {
			checkPath(errs, p+".file", m.File)
		}
		if r.OnFailure == deploy.OnFailureRollback && idPattern.MatchString(r.ID) && namePattern.MatchString(m.Name) &&
			!idPattern.MatchString(deploy.ReleaseRollbackID(r.ID, m.Name)) {
			errs.Add(p+".name", "the rollback ID %s would be longer than 128 characters", deploy.ReleaseRollbackID(r.ID, m.Name))
		}
	}
	for i, m := range r.Deploys {
		checkMemberAfter(errs, yamltree.Index("deploys", i)+".after", m, index)
	}
	members := make([]deploy.ReleaseMember, len(r.Deploys))
	for i, m := range r.Deploys {
		members[i] = deploy.ReleaseMember{Name: m.Name, After: m.After}
	}
	for _, c := range findCycles(members, index) {
		errs.Add(c.path, "closes the dependency cycle %s", strings.Join(c.names, " → "))
	}
}

func checkMemberName(errs *yamltree.Errors, p, name string, index map[string]int) {
	first, dup := index[name]
	switch {
	case name == "":
		required(errs, p)
	case !namePattern.MatchString(name):
		errs.Add(p, msgNamePattern)
	case dup:
		errs.Add(p, "%s is already the name of deploys[%d]", name, first)
	}
}

func checkMemberAfter(errs *yamltree.Errors, p string, m rawMember, index map[string]int) {
	if len(m.After) > deploy.MaxAfter {
		errs.Add(p, "at most %d dependencies are allowed, found %d", deploy.MaxAfter, len(m.After))
		return
	}
	seen := make(map[string]int, len(m.After))
	for j, name := range m.After {
		q := yamltree.Index(p, j)
		first, dup := seen[name]
		_, known := index[name]
		switch {
		case errs.Bad(q):
		case name == m.Name && name != "":
			errs.Add(q, "a deploy cannot depend on itself")
		case !known:
			errs.Add(q, "%q is not the name of a deploy of this release", name)
		case dup:
			errs.Add(q, "%s is already listed (after[%d])", name, first)
		}
		if !dup {
			seen[name] = j
		}
	}
}

type cycle struct {
	// path is the after entry that closes the cycle.
	path  string
	names []string
}

// findCycles walks the dependencies depth first in document order and
// returns one cycle per edge that closes one, so every independent cycle
// is reported. Unknown names and self-dependencies are reported elsewhere.
func findCycles(members []deploy.ReleaseMember, index map[string]int) []cycle {
	const (
		unseen = iota
		open
		done
	)
	state := make([]int, len(members))
	var stack []int
	var out []cycle
	var visit func(i int)
	visit = func(i int) {
		state[i] = open
		stack = append(stack, i)
		for j, name := range members[i].After {
			k, ok := index[name]
			if !ok || k == i {
				continue
			}
			switch state[k] {
			case unseen:
				visit(k)
			case open:
				start := 0
				for stack[start] != k {
					start++
				}
				// Each deploy on the stack waits for the one above it: read
				// downwards, the cycle is in the order the deploys would run.
				names := []string{members[k].Name}
				for s := len(stack) - 1; s >= start; s-- {
					names = append(names, members[stack[s]].Name)
				}
				out = append(out, cycle{path: yamltree.Index(yamltree.Index("deploys", i)+".after", j), names: names})
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
	}
	for i := range members {
		if state[i] == unseen {
			visit(i)
		}
	}
	return out
}

// TopoOrder returns the names of the release's deploys in an order where
// every deploy comes after those it depends on; among deploys ready at the
// same time, the one written first comes first. A cycle or an unknown name
// is an EINVALID error.
func TopoOrder(r *deploy.ReleaseDescriptor) ([]string, error) {
	index := make(map[string]int, len(r.Deploys))
	var errs yamltree.Errors
	for i, m := range r.Deploys {
		checkMemberName(&errs, yamltree.Index("deploys", i)+".name", m.Name, index)
		if _, dup := index[m.Name]; !dup {
			index[m.Name] = i
		}
	}
	for i, m := range r.Deploys {
		checkMemberAfter(&errs, yamltree.Index("deploys", i)+".after", rawMember{Name: m.Name, After: m.After}, index)
	}
	if errs.Len() > 0 {
		return nil, invalidRelease(errs.List())
	}
	placed := make([]bool, len(r.Deploys))
	order := make([]string, 0, len(r.Deploys))
	for len(order) < len(r.Deploys) {
		next := -1
		for i, m := range r.Deploys {
			if !placed[i] && allPlaced(m.After, index, placed) {
				next = i
				break
			}
		}
		if next < 0 {
			for _, c := range findCycles(r.Deploys, index) {
				errs.Add(c.path, "closes the dependency cycle %s", strings.Join(c.names, " → "))
			}
			return nil, invalidRelease(errs.List())
		}
		placed[next] = true
		order = append(order, r.Deploys[next].Name)
	}
	return order, nil
}

func allPlaced(after []string, index map[string]int, placed []bool) bool {
	for _, name := range after {
		if !placed[index[name]] {
			return false
		}
	}
	return true
}

// ValidateReleaseMembers parses the descriptor of every deploy of r, which
// must be inline by then (the CLI reads the files), and checks what a
// release adds: no schedule or dryRun, a deployment import may name a
// deploy of the release in the member's after, at most deploy.MaxAfter
// dependencies in all, and distinct deploy IDs. Every problem is reported
// at once, its path prefixed with deploys[i].descriptor. The descriptors
// are returned as written: ResolveReleaseMembers turns names into IDs.
func ValidateReleaseMembers(r *deploy.ReleaseDescriptor) ([]*deploy.Descriptor, error) {
	var errs yamltree.Errors
	out := make([]*deploy.Descriptor, len(r.Deploys))
	ids := make(map[string]int, len(r.Deploys))
	for i, m := range r.Deploys {
		p := yamltree.Index("deploys", i) + ".descriptor"
		if m.Descriptor == "" {
			errs.Add(p, "is required: the deploy's descriptor must be inline (the CLI reads file)")
			continue
		}
		d, fields := parse([]byte(m.Descriptor), parseContext{inRelease: true, releaseAfter: m.After})
		if fields != nil {
			errs.AddAll(prefixFields(p, fields))
			continue
		}
		if n := len(d.After) + len(m.After); n > deploy.MaxAfter {
			errs.Add(p+".after", "at most %d dependencies are allowed in all (here and in the release), found %d", deploy.MaxAfter, n)
		}
		id := ReleaseDeployID(r.ID, m.Name, d)
		switch first, dup := ids[id]; {
		case !idPattern.MatchString(id):
			errs.Add(p+".id", "is needed: the default ID %s would be longer than 128 characters", id)
		case dup:
			errs.Add(p+".id", "the deploy ID %s is also the ID of deploys[%d]", id, first)
		default:
			ids[id] = i
		}
		out[i] = d
	}
	if errs.Len() > 0 {
		return nil, invalidRelease(errs.List())
	}
	return out, nil
}

// prefixFields places the problems of a member's descriptor below p.
func prefixFields(p string, fields []deploy.FieldError) []deploy.FieldError {
	out := make([]deploy.FieldError, len(fields))
	for i, f := range fields {
		switch {
		case f.Path == "":
			f.Path = p
		case strings.HasPrefix(f.Path, "["):
			f.Path = p + f.Path
		default:
			f.Path = p + "." + f.Path
		}
		out[i] = f
	}
	return out
}

// ReleaseDeployID is the ID a deploy of a release runs with: its
// descriptor's id, or <release>.<name>.
func ReleaseDeployID(releaseID, name string, d *deploy.Descriptor) string {
	if d != nil && d.ID != "" {
		return d.ID
	}
	return deploy.ReleaseMemberID(releaseID, name)
}

// ResolveReleaseMembers returns copies of the validated descriptors of r
// (in the order of r.Deploys) as they are submitted: each with its ID, the
// release's dependencies added to after as IDs, and deployment imports that
// name a deploy of the release rewritten to its ID.
func ResolveReleaseMembers(r *deploy.ReleaseDescriptor, ds []*deploy.Descriptor) ([]*deploy.Descriptor, error) {
	if len(ds) != len(r.Deploys) {
		return nil, errors.New("resolve release members: one descriptor per deploy is needed")
	}
	ids := make(map[string]string, len(ds))
	members := make(map[string]string, len(ds))
	for i, m := range r.Deploys {
		ids[m.Name] = ReleaseDeployID(r.ID, m.Name, ds[i])
		members[ids[m.Name]] = m.Name
	}
	// A deploy's own after may name deploys outside the release only: inside
	// it, the order is the release's after, by name, where self-dependencies
	// and cycles are checked (an ID would slip past both).
	var fields []deploy.FieldError
	for i := range r.Deploys {
		for j, id := range ds[i].After {
			if name, ok := members[id]; ok {
				fields = append(fields, deploy.FieldError{
					Path:    fmt.Sprintf("deploys[%d].descriptor.after[%d]", i, j),
					Message: fmt.Sprintf("%q is a deploy of this release: write after: [%s] in the release instead", id, name),
				})
			}
		}
	}
	if len(fields) > 0 {
		return nil, &deploy.Error{Code: deploy.EINVALID, Message: "invalid release", Fields: fields}
	}
	out := make([]*deploy.Descriptor, len(ds))
	for i, m := range r.Deploys {
		d := *ds[i]
		d.ID = ids[m.Name]
		d.After = append([]string(nil), ds[i].After...)
		inRelease := make(map[string]bool, len(m.After))
		for _, name := range m.After {
			inRelease[name] = true
			if !contains(d.After, ids[name]) {
				d.After = append(d.After, ids[name])
			}
		}
		if len(d.Imports) > 0 {
			d.Imports = make(map[string]deploy.Import, len(ds[i].Imports))
			for k, imp := range ds[i].Imports {
				if inRelease[imp.Deployment] {
					imp.Deployment = ids[imp.Deployment]
				}
				d.Imports[k] = imp
			}
		}
		out[i] = &d
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (r *rawRelease) release() *deploy.ReleaseDescriptor {
	out := &deploy.ReleaseDescriptor{
		APIVersion: r.APIVersion, Kind: r.Kind, ID: r.ID, OnFailure: r.OnFailure,
		Deploys: make([]deploy.ReleaseMember, len(r.Deploys)),
	}
	if out.OnFailure == "" {
		out.OnFailure = deploy.OnFailureStop
	}
	for i, m := range r.Deploys {
		out.Deploys[i] = deploy.ReleaseMember{Name: m.Name, File: m.File, Descriptor: m.Descriptor, After: nonEmpty(m.After)}
	}
	return out
}

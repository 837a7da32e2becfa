package llm

import (
	"context"
	"fmt"
	"sort"
)

// Router is a Client that dispatches each request on Request.Role to the
// client bound to that role, or to Default when the role is not bound.
type Router struct {
	Roles   map[string]Client
	Default Client
}

// client returns the client bound to role.
func (r Router) client(role string) (Client, error) {
	if c, ok := r.Roles[role]; ok && c != nil {
		return c, nil
	}
	if r.Default != nil {
		return r.Default, nil
	}
	bound := make([]string, 0, len(r.Roles))
	for k := range r.Roles {
		bound = append(bound, k)
	}
	sort.Strings(bound)
	return nil, fmt.Errorf("llm: no model bound to role %q and no default (bound roles: %v)", role, bound)
}

// Complete forwards req to the client bound to req.Role.
func (r Router) Complete(ctx context.Context, req Request) (*Response, error) {
	c, err := r.client(req.Role)
	if err != nil {
		return nil, err
	}
	return c.Complete(ctx, req)
}

// Embed forwards to the client bound to role, which must be an Embedder.
func (r Router) Embed(ctx context.Context, role string, texts []string) ([][]float32, Usage, error) {
	c, err := r.client(role)
	if err != nil {
		return nil, Usage{}, err
	}
	e, ok := c.(Embedder)
	if !ok {
		return nil, Usage{}, fmt.Errorf("llm: the model bound to role %q does not compute embeddings", role)
	}
	return e.Embed(ctx, role, texts)
}

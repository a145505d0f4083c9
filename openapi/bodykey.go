package openapi

import (
	"fmt"
	"strconv"

	"github.com/retryspec/retryspec/contract"
	"go.yaml.in/yaml/v3"
)

// bodyKey describes a key that travels in the JSON body
// (idempotency.key_in: body) where it lives: a string property of the
// operation's application/json request schema, with the endpoint's
// maxLength, listed in required when the key is. An operation without a
// request body gets one; a schema that is a $ref gets the property on the
// component (once, however many operations share it); a property the
// spec already declares is reused, or contradicts the contract's bound.
func (b *planner) bodyKey(e contract.Endpoint, op Operation) {
	id := b.c.Idempotency
	member := id.KeyMember()
	t := b.opTarget(op)
	prop := BodyKeyProperty(b.c, e)
	required := e.Key == contract.KeyRequired
	rbNode := mapGet(op.node, "requestBody")
	if rbNode == nil {
		schema := obj("type", "object")
		if required {
			schema = append(schema, KV{"required", []any{member}})
		}
		schema = append(schema, KV{"properties", obj(member, prop)})
		b.add(t, op.node, "requestBody", obj("required", true, "content", obj("application/json", obj("schema", schema))))
		return
	}
	rb, ref := b.s.resolveRef(deref(rbNode))
	target := append(t, "requestBody")
	if ref != "" {
		target = refKeys(ref)
	}
	content := deref(mapGet(rb, "content"))
	media := deref(mapGet(content, "application/json"))
	if media == nil || media.Kind != yaml.MappingNode {
		b.skipped(e.Operation, rbNode, "the request body has no application/json content: the key cannot travel in it (%s)", id.KeyFieldPointer())
		return
	}
	target = append(target, "content", "application/json")
	schemaNode := mapGet(media, "schema")
	if schemaNode == nil {
		schema := obj("type", "object", "properties", obj(member, prop))
		if required {
			schema = append(schema, KV{"required", []any{member}})
		}
		b.add(target, media, "schema", schema)
		return
	}
	schema, sref := b.s.resolveRef(deref(schemaNode))
	target = append(target, "schema")
	if sref != "" {
		target = refKeys(sref)
		if b.bodyKeyDone == nil {
			b.bodyKeyDone = map[string]bool{}
		}
		if b.bodyKeyDone[sref] {
			return
		}
		b.bodyKeyDone[sref] = true
	}
	if schema == nil || schema.Kind != yaml.MappingNode || (mapGet(schema, "properties") == nil && mapGet(schema, "type") == nil) {
		b.skipped(e.Operation, schemaNode, "the request schema is not a plain object schema (allOf, oneOf, ...); add the %s property by hand", member)
		return
	}
	props := deref(mapGet(schema, "properties"))
	if existing := deref(mapGet(props, member)); existing != nil {
		b.existingBodyKey(e, existing)
	} else if props != nil && props.Kind == yaml.MappingNode {
		b.add(append(target, "properties"), props, member, prop)
	} else {
		b.add(target, schema, "properties", obj(member, prop))
	}
	if !required {
		return
	}
	req := deref(mapGet(schema, "required"))
	switch {
	case req == nil:
		b.add(target, schema, "required", []any{member})
	case req.Kind == yaml.SequenceNode:
		for _, item := range req.Content {
			if item.Value == member {
				return
			}
		}
		b.add(append(target, "required"), req, "", member)
	}
}

// existingBodyKey checks a key property the spec already declares against
// the endpoint's bound: reused when it agrees.
func (b *planner) existingBodyKey(e contract.Endpoint, prop *yaml.Node) {
	member := b.c.Idempotency.KeyMember()
	max := b.c.MaxKeyLengthFor(e)
	if ml := mapGet(prop, "maxLength"); ml != nil {
		if n, err := strconv.Atoi(ml.Value); err == nil && n != max {
			b.contradiction(ml, fmt.Sprintf("endpoints[%d].max_key_length", b.endpointIndex(e)),
				fmt.Sprintf("make maxLength %d in the spec, or set max_key_length: %d on %s in the contract", max, n, e.Operation),
				"%s: the spec's %s property allows %d characters but the contract's bound for it is %d", e.Operation, member, n, max)
			return
		}
	}
	b.reused(e.Operation, prop, "body property %s is already declared; reused", member)
}

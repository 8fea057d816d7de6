package ddblocal

// CreateTable's request, the first of every engine, on the same fast path
// as the item operations (see decode.go): anything unusual is left to
// encoding/json.

// decodeObject reads an object whose fields field decodes, refusing a
// field named twice (encoding/json would merge or overwrite it).
func (r *jsonReader) decodeObject(field func(name string) bool) bool {
	if !r.consume('{') {
		return false
	}
	var seen [12]string
	for i := 0; ; i++ {
		b, more, ok := r.member(i)
		if !ok {
			return false
		}
		if !more {
			return true
		}
		name := unsafeString(b)
		for _, s := range seen[:min(i, len(seen))] {
			if s == name {
				return false
			}
		}
		if i >= len(seen) || !field(name) {
			return false
		}
		seen[i] = name
	}
}

// decodeArray reads an array of objects, each decoded by elem into a new
// element of the slice.
func decodeArray[T any](r *jsonReader, elem func(r *jsonReader, v *T) bool) ([]T, bool) {
	if !r.consume('[') {
		return nil, false
	}
	out := []T{}
	for i := 0; ; i++ {
		more, ok := r.elem(i)
		if !more || !ok {
			return out, ok
		}
		var v T
		if !elem(r, &v) {
			return nil, false
		}
		out = append(out, v)
	}
}

func (r *jsonReader) int64Ptr() (*int64, bool) {
	v, ok := r.integer()
	if !ok {
		return nil, false
	}
	n := int64(v)
	return &n, true
}

func decodeAttributeDefinition(r *jsonReader, d *attributeDefinition) bool {
	return r.decodeObject(func(name string) (ok bool) {
		switch name {
		case "AttributeName":
			d.AttributeName, ok = r.str()
		case "AttributeType":
			d.AttributeType, ok = r.str()
		}
		return ok
	})
}

func decodeKeySchemaElement(r *jsonReader, k *keySchemaElement) bool {
	return r.decodeObject(func(name string) (ok bool) {
		switch name {
		case "AttributeName":
			k.AttributeName, ok = r.str()
		case "KeyType":
			k.KeyType, ok = r.str()
		}
		return ok
	})
}

func decodeTag(r *jsonReader, t *tag) bool {
	return r.decodeObject(func(name string) (ok bool) {
		switch name {
		case "Key":
			t.Key, ok = r.str()
		case "Value":
			t.Value, ok = r.str()
		}
		return ok
	})
}

func decodeThroughput(r *jsonReader) (*provisionedThroughput, bool) {
	p := &provisionedThroughput{}
	return p, r.decodeObject(func(name string) (ok bool) {
		switch name {
		case "ReadCapacityUnits":
			p.ReadCapacityUnits, ok = r.int64Ptr()
		case "WriteCapacityUnits":
			p.WriteCapacityUnits, ok = r.int64Ptr()
		}
		return ok
	})
}

func decodeIndex(r *jsonReader, ix *indexJSON) bool {
	return r.decodeObject(func(name string) (ok bool) {
		switch name {
		case "IndexName":
			ix.IndexName, ok = r.str()
		case "KeySchema":
			ix.KeySchema, ok = decodeArray(r, decodeKeySchemaElement)
		case "Projection":
			ok = r.decodeObject(func(name string) (ok bool) {
				switch name {
				case "ProjectionType":
					ix.Projection.ProjectionType, ok = r.str()
				case "NonKeyAttributes":
					ix.Projection.NonKeyAttributes, ok = r.strings()
				}
				return ok
			})
		case "ProvisionedThroughput":
			ix.ProvisionedThroughput, ok = decodeThroughput(r)
		}
		return ok
	})
}

func (in *createTableInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		in.TableName, ok = r.str()
	case "AttributeDefinitions":
		in.AttributeDefinitions, ok = decodeArray(r, decodeAttributeDefinition)
	case "KeySchema":
		in.KeySchema, ok = decodeArray(r, decodeKeySchemaElement)
	case "GlobalSecondaryIndexes":
		in.GlobalSecondaryIndexes, ok = decodeArray(r, decodeIndex)
	case "LocalSecondaryIndexes":
		in.LocalSecondaryIndexes, ok = decodeArray(r, decodeIndex)
	case "BillingMode":
		in.BillingMode, ok = r.str()
	case "ProvisionedThroughput":
		in.ProvisionedThroughput, ok = decodeThroughput(r)
	case "StreamSpecification":
		s := &streamSpecification{}
		in.StreamSpecification = s
		ok = r.decodeObject(func(name string) (ok bool) {
			switch name {
			case "StreamEnabled":
				var on bool
				on, ok = r.boolean()
				s.StreamEnabled = &on
			case "StreamViewType":
				s.StreamViewType, ok = r.str()
			}
			return ok
		})
	case "DeletionProtectionEnabled":
		in.DeletionProtectionEnabled, ok = r.boolean()
	case "Tags":
		in.Tags, ok = decodeArray(r, decodeTag)
	case "TableClass":
		in.TableClass, ok = r.str()
	}
	return ok
}

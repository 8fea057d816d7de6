package wire

// Kind is a shape's type in the API model.
type Kind uint8

// The kinds of shapes DynamoDB's model uses.
const (
	KindStructure Kind = iota + 1
	KindList
	KindMap
	KindString
	KindInteger
	KindLong
	KindDouble
	KindBoolean
	KindBlob
	KindTimestamp
)

var kindNames = [...]string{
	KindStructure: "structure", KindList: "list", KindMap: "map", KindString: "string",
	KindInteger: "integer", KindLong: "long", KindDouble: "double", KindBoolean: "boolean",
	KindBlob: "blob", KindTimestamp: "timestamp",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// ShapeID indexes a generated package's Shapes table.
type ShapeID uint16

// Shape is one shape of the model with its constraints. Min and Max bound
// a string's or blob's length, a list's or map's size, or a number's value;
// they hold only when HasMin and HasMax say so.
type Shape struct {
	Name    string
	Kind    Kind
	HasMin  bool
	HasMax  bool
	Min     int64
	Max     int64
	Pattern string   // a Java regular expression the whole value must match
	Enum    []string // the allowed values, in the model's order
	// Members are a structure's members in the model's order.
	Members []Member
	// Elem is a list's member shape; Key and Value are a map's.
	Elem, Key, Value ShapeID
	// Exception marks an error shape.
	Exception bool
}

// Member is a structure's member.
type Member struct {
	Name     string
	Shape    ShapeID
	Required bool
}

// Operation is one operation of the model.
type Operation struct {
	Name          string
	Input, Output ShapeID
	HasInput      bool
	HasOutput     bool
	// Errors are the error codes the model lists for the operation.
	Errors []string
}

package partiql_test

import (
	"fmt"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/partiql"
)

func ExampleParse() {
	st, err := partiql.Parse(`UPDATE "Music" SET AwardsWon = AwardsWon + 1 REMOVE "draft" WHERE Artist = ? AND SongTitle = 'PartiQL Rocks' RETURNING ALL NEW *`)
	if err != nil {
		panic(err)
	}
	vals, err := st.Bind([]attr.Value{attr.Str("Acme Band")})
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Kind, st.Table, st.Returning)
	fmt.Println(st.Update)
	fmt.Println(st.Where)
	fmt.Println(st.Names["#n2"], vals[":v1"].S)
	// Output:
	// UPDATE Music ALL_NEW
	// SET #n0 = #n0 + :v0 REMOVE #n1
	// #n2 = :v1 AND #n3 = :v2
	// Artist Acme Band
}

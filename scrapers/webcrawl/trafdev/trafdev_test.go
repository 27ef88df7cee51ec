package trafdev

import (
	"fmt"
	"testing"
)

func TestScoreAsEvalCommon(t *testing.T) {
	p := Page{
		With:    []string{"Der  Text\nbeginnt", "fehlt hier", "zweiter Absatz"},
		Without: []string{"Mehr zum Thema", "Teilen"},
	}
	text := "  Der Text   beginnt hier.\n\nZweiter Absatz. Mehr zum\tThema "
	got := Score(p, text)
	want := Count{TP: 1, FN: 2, FP: 1, TN: 1} // matching is case-sensitive, as eval_common's "in"
	if got != want {
		t.Fatalf("Score = %+v, want %+v", got, want)
	}
	if e := Score(p, " \n "); e != (Count{FN: 3, TN: 2}) {
		t.Errorf("an empty text scores %+v: every with missed, every without absent", e)
	}
}

func ExampleCount_F1() {
	c := Count{TP: 8, FP: 2, FN: 2}
	fmt.Printf("P %.2f R %.2f F1 %.2f\n", c.Precision(), c.Recall(), c.F1())
	// Output: P 0.80 R 0.80 F1 0.80
}

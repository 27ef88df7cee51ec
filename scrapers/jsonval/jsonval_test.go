package jsonval

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	v, err := Decode([]byte(s))
	if err != nil {
		t.Fatalf("Decode(%s): %v", s, err)
	}
	return v
}

func TestDecodeKeepsNumbersExact(t *testing.T) {
	v := decode(t, `{"id":7000000000000000001,"big":12345678901234567890,"f":2.5} trailing text is not read`)
	if String(Get(v, "id")) != "7000000000000000001" || String(Get(v, "big")) != "12345678901234567890" {
		t.Errorf("numbers lost digits: %v", v)
	}
	if n, ok := Int(Get(v, "id")); !ok || n != 7000000000000000001 {
		t.Errorf("Int(id) = %d, %v", n, ok)
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `<html>`, "\xff"} {
		if v, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", bad, v)
		}
	}
}

func TestGet(t *testing.T) {
	var v any // as encoding/json decodes without UseNumber
	if err := json.Unmarshal([]byte(`{"a":[{"b":"x"},2,null],"n":3.5}`), &v); err != nil {
		t.Fatal(err)
	}
	if Get(v, "a", 0, "b") != "x" || Get(v, "a", 5) != nil || Get(v, "a", -1) != nil || Get(v, "n", "x") != nil || Get(v, 1.5) != nil {
		t.Error("Get through objects and arrays")
	}
	if Get(v) == nil || Get(nil, "a") != nil || Get(v, "a", 2) != nil || Get(v, "a", "b", "c") != nil || Get("text", "a") != nil || Get(v, 0) != nil {
		t.Error("Get through non-objects")
	}
	if Get(v, "n") != 3.5 {
		t.Errorf("Get(n) = %v", Get(v, "n"))
	}
}

func TestString(t *testing.T) {
	v := decode(t, `["s",12,1.5,true,null,{},[]]`)
	want := []string{"s", "12", "1.5", "", "", "", ""}
	for i, w := range want {
		if got := String(Get(v, i)); got != w {
			t.Errorf("String(%v) = %q, want %q", Get(v, i), got, w)
		}
	}
	if FirstString(nil, "", 7.0, json.Number("8"), "x") != "8" || FirstString() != "" || FirstString(true) != "" {
		t.Error("FirstString")
	}
}

func TestInt(t *testing.T) {
	v := decode(t, `[42,"  17 ",3.9,1e300,"x",true,-5,"1.5",1e18]`)
	cases := []struct {
		i    int
		n    int64
		want bool
	}{{0, 42, true}, {1, 17, true}, {2, 3, true}, {3, 0, false}, {4, 0, false}, {5, 0, false}, {6, -5, true}, {7, 0, false}, {8, 1e18, true}}
	for _, c := range cases {
		if n, ok := Int(Get(v, c.i)); ok != c.want || n != c.n {
			t.Errorf("Int(%v) = %d, %v; want %d, %v", Get(v, c.i), n, ok, c.n, c.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), 1 << 63} {
		if _, ok := Int(f); ok {
			t.Errorf("Int(%v) is a whole number", f)
		}
	}
	if n, ok := Int(12.7); !ok || n != 12 {
		t.Errorf("Int(12.7) = %d, %v", n, ok)
	}
	if n, ok := FirstInt(nil, "x", json.Number("9"), 10.0); !ok || n != 9 {
		t.Errorf("FirstInt = %d, %v", n, ok)
	}
	if _, ok := FirstInt("x", nil); ok {
		t.Error("FirstInt of no number")
	}
}

func TestFloat(t *testing.T) {
	v := decode(t, `[2.5," 3.25 ",1e999,"NaN","Inf","x",null,7]`)
	cases := []struct {
		i    int
		f    float64
		want bool
	}{{0, 2.5, true}, {1, 3.25, true}, {2, 0, false}, {3, 0, false}, {4, 0, false}, {5, 0, false}, {6, 0, false}, {7, 7, true}}
	for _, c := range cases {
		if f, ok := Float(Get(v, c.i)); ok != c.want || f != c.f {
			t.Errorf("Float(%v) = %v, %v; want %v, %v", Get(v, c.i), f, ok, c.f, c.want)
		}
	}
	if f, ok := Float(0.5); !ok || f != 0.5 {
		t.Errorf("Float(float64) = %v, %v", f, ok)
	}
	if _, ok := Float(math.Inf(-1)); ok {
		t.Error("Float(-Inf) is finite")
	}
}

func TestKinds(t *testing.T) {
	v := decode(t, `[1,"$1,299.00",null,true,{"c":"x"},[1]]`)
	if !Bool(Get(v, 3)) || Bool(Get(v, 0)) || Bool("true") || Bool(nil) {
		t.Error("Bool")
	}
	if len(List(Get(v, 5))) != 1 || List(Get(v, 4)) != nil || List(nil) != nil || len(List(v)) != 6 {
		t.Error("List")
	}
	if Object(Get(v, 4))["c"] != "x" || Object(Get(v, 5)) != nil || Object(nil) != nil {
		t.Error("Object")
	}
}

// FuzzHelpers: whatever JSON comes, walking it with every helper along any
// path never panics, and Get steps exactly as indexing the tree by hand does.
func FuzzHelpers(f *testing.F) {
	f.Add([]byte(`{"a":[{"b":"x"},2,null],"n":3.5}`), "a", 0)
	f.Add([]byte(`[1e999,"12",-1,true]`), "", 1)
	f.Add([]byte(`{"":{"":[[[]]]}}`), "", -1)
	f.Add([]byte(`"\ud800"`), "x", 3)
	f.Fuzz(func(t *testing.T, b []byte, key string, idx int) {
		v, err := Decode(b)
		if err != nil {
			return
		}
		var byKey, byIdx any
		if m, ok := v.(map[string]any); ok {
			byKey = m[key]
		}
		if a, ok := v.([]any); ok && idx >= 0 && idx < len(a) {
			byIdx = a[idx]
		}
		if !reflect.DeepEqual(Get(v, key), byKey) || !reflect.DeepEqual(Get(v, idx), byIdx) {
			t.Fatalf("Get(%q) = %v, Get(%d) = %v; by hand %v, %v", key, Get(v, key), idx, Get(v, idx), byKey, byIdx)
		}
		for _, path := range [][]any{{key}, {idx}, {key, idx}, {idx, key}, {key, key, idx}} {
			x := Get(v, path...)
			if s := String(x); s != "" && x == nil {
				t.Fatalf("String(nil) = %q", s)
			}
			if n, ok := Int(x); ok {
				if f, fok := Float(x); fok && math.Abs(f-float64(n)) >= 1 && math.Abs(f) < 1<<52 {
					t.Fatalf("Int(%v) = %d but Float = %v", x, n, f)
				}
			}
			Bool(x)
			FirstInt(x, v)
			FirstString(x, v)
			for _, e := range List(x) {
				String(e)
			}
			for _, e := range Object(x) {
				Int(e)
			}
		}
	})
}

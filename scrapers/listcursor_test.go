package scrapers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The encodings below are what Instagram's and TikTok's own cursor types
// gave before they shared ListCursor: a changed one breaks every cursor
// agents hold.
func TestListCursorWire(t *testing.T) {
	keyed := ListCursorCodec{MaxSkip: 50, MaxField: MaxCursorLen, KeepEmptyKeys: true, Valid: func(c ListCursor) bool { return c.Kind == "posts" && c.Key != "" }}
	bare := ListCursorCodec{MaxSkip: 1000, MaxField: 512, Valid: func(c ListCursor) bool { return c.Kind != "" }}
	for _, tc := range []struct {
		codec ListCursorCodec
		c     ListCursor
		want  string
	}{
		{keyed, ListCursor{Kind: "posts", Key: "natgeo", ID: "787132", After: "QVFE", Skip: 3}, "eyJrIjoicG9zdHMiLCJ1IjoibmF0Z2VvIiwiaWQiOiI3ODcxMzIiLCJjIjoiUVZGRSIsInMiOjN9"},
		{keyed, ListCursor{Kind: "posts", Key: "natgeo"}, "eyJrIjoicG9zdHMiLCJ1IjoibmF0Z2VvIiwiaWQiOiIifQ"},
		{bare, ListCursor{Kind: "hashtag", Key: "bread", ID: "6983", After: "30", Skip: 2}, "eyJrIjoiaGFzaHRhZyIsInUiOiJicmVhZCIsImlkIjoiNjk4MyIsImMiOiIzMCIsInMiOjJ9"},
		{bare, ListCursor{Kind: "trending"}, "eyJrIjoidHJlbmRpbmcifQ"},
	} {
		if got := tc.codec.Encode(tc.c); got != tc.want {
			t.Errorf("Encode(%+v) = %s, want %s", tc.c, got, tc.want)
		}
		if got, err := tc.codec.Parse(tc.want); err != nil || got != tc.c {
			t.Errorf("Parse(%s) = %+v, %v; want %+v", tc.want, got, err, tc.c)
		}
	}
	for _, bad := range []string{"!!", "bnVsbA", strings.Repeat("A", MaxCursorLen+1),
		bare.Encode(ListCursor{}), bare.Encode(ListCursor{Kind: "x", Skip: -1}), bare.Encode(ListCursor{Kind: "x", Skip: 1001}),
		bare.Encode(ListCursor{Kind: "x", After: strings.Repeat("a", 513)}), bare.Encode(ListCursor{Kind: "x", ID: strings.Repeat("1", 513)})} {
		if c, err := bare.Parse(bad); err == nil {
			t.Errorf("Parse(%.40s) = %+v, want an error", bad, c)
		}
	}
}

// pages is a listing of n items, size to a page, its cursors the offsets.
func pages(n, size int) func(ctx context.Context, at string, want int) (*ListPage[int], error) {
	return func(_ context.Context, at string, _ int) (*ListPage[int], error) {
		off := 0
		fmt.Sscan(at, &off)
		pg := &ListPage[int]{}
		for i := off; i < min(off+size, n); i++ {
			pg.Items = append(pg.Items, i)
		}
		if off+size < n {
			pg.Cursor, pg.More = fmt.Sprint(off+size), true
		}
		return pg, nil
	}
}

func TestWalkListing(t *testing.T) {
	ctx := context.Background()
	var got []int
	add := func(i int) bool { got = append(got, i); return true }
	have, next, err := WalkListing(ctx, 25, ListPosition{}, nil, 10, 10, pages(40, 10), add)
	if have != 25 || err != nil || next == nil || *next != (ListPosition{After: "20", Skip: 5}) {
		t.Fatalf("first walk: %d, %+v, %v", have, next, err)
	}
	have, next, err = WalkListing(ctx, 100, *next, nil, 10, 10, pages(40, 10), add)
	if have != 15 || err != nil || next != nil || len(got) != 40 || got[25] != 25 || got[39] != 39 {
		t.Fatalf("second walk: %d, %+v, %v, %v", have, next, err, got)
	}
	// A page of nothing new ends the walk at the next page.
	have, next, err = WalkListing(ctx, 100, ListPosition{}, nil, 10, 10, pages(40, 10), func(int) bool { return false })
	if have != 0 || err != nil || next == nil || *next != (ListPosition{After: "10"}) {
		t.Fatalf("nothing new: %d, %+v, %v", have, next, err)
	}
	// A cursor that does not move ends it.
	stuck := func(context.Context, string, int) (*ListPage[int], error) {
		return &ListPage[int]{Items: []int{1}, Cursor: "same", More: true}, nil
	}
	if have, next, err = WalkListing(ctx, 50, ListPosition{After: "same"}, nil, 10, 10, stuck, add); have != 1 || next != nil || err != nil {
		t.Fatalf("stuck cursor: %d, %+v, %v", have, next, err)
	}
	// The page bound is said, with where to go on.
	if have, next, err = WalkListing(ctx, 100, ListPosition{}, nil, 10, 3, pages(100, 10), add); have != 30 || next == nil || next.After != "30" || err == nil || !strings.Contains(err.Error(), "stopped after 3 pages") {
		t.Fatalf("page bound: %d, %+v, %v", have, next, err)
	}
	// An upstream error keeps where to try again.
	boom := errors.New("boom")
	fail := func(context.Context, string, int) (*ListPage[int], error) { return nil, boom }
	first := &ListPage[int]{Items: []int{1, 2}, Cursor: "p2", More: true}
	if have, next, err = WalkListing(ctx, 5, ListPosition{}, first, 10, 10, fail, add); have != 2 || next == nil || next.After != "p2" || !errors.Is(err, boom) {
		t.Fatalf("upstream error: %d, %+v, %v", have, next, err)
	}
	// A cancelled call stops before asking.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if have, next, err = WalkListing(cctx, 5, ListPosition{}, nil, 10, 10, pages(40, 10), add); have != 0 || next == nil || err == nil {
		t.Fatalf("cancelled: %d, %+v, %v", have, next, err)
	}
}

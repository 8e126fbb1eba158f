package main

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"
)

func fixedPhases() []phase {
	var ps []phase
	for round, f := range []float64{1, 1.2, 0.8} {
		for _, c := range []int{1, 8} {
			ps = append(ps,
				phase{Target: "Agentry", Concurrency: c, Round: round + 1, Runs: 100, RunsPerSec: 100 * f * float64(c),
					P50: time.Duration(10*f) * time.Millisecond, P99: time.Duration(20*f) * time.Millisecond,
					FirstEvent: 2 * time.Millisecond, CPU: time.Duration(round+1) * 500 * time.Millisecond, PeakRSS: int64(80+round) << 20},
				phase{Target: "LangGraph", Concurrency: c, Round: round + 1, Runs: 20, Failed: round, RunsPerSec: 20 * f * float64(c),
					P50: time.Duration(500*f) * time.Millisecond, P99: time.Duration(900*f) * time.Millisecond,
					FirstEvent: 40 * time.Millisecond, CPU: 800 * time.Millisecond, PeakRSS: 300 << 20})
		}
	}
	return ps
}

func TestSummarizeTakesMediansAndSpreadOverRounds(t *testing.T) {
	sums := summarize(fixedPhases())
	if len(sums) != 4 {
		t.Fatalf("got %d summaries, want 4: %+v", len(sums), sums)
	}
	want := []struct {
		target string
		c      int
	}{{"Agentry", 1}, {"LangGraph", 1}, {"Agentry", 8}, {"LangGraph", 8}}
	for i, w := range want {
		if sums[i].Target != w.target || sums[i].Concurrency != w.c {
			t.Errorf("summary %d is %s at %d, want %s at %d", i, sums[i].Target, sums[i].Concurrency, w.target, w.c)
		}
	}
	a8 := sums[2]
	if a8.RunsPerSec != 800 || a8.MinRPS != 640 || a8.MaxRPS != 960 {
		t.Errorf("Agentry at 8: runs/s %v (%v–%v), want 800 (640–960)", a8.RunsPerSec, a8.MinRPS, a8.MaxRPS)
	}
	if a8.P99 != 20*time.Millisecond || a8.PeakRSS != 82<<20 || a8.Runs != 300 || a8.Rounds != 3 {
		t.Errorf("Agentry at 8: p99 %v, peak %d, runs %d, rounds %d", a8.P99, a8.PeakRSS, a8.Runs, a8.Rounds)
	}
	if a8.CPUPerRun != 10*time.Millisecond {
		t.Errorf("Agentry at 8: CPU per run %v, want the rounds' 3 s over 300 runs", a8.CPUPerRun)
	}
	if sums[3].Failed != 3 {
		t.Errorf("LangGraph at 8: %d failed, want the total 3", sums[3].Failed)
	}
}

func fixedReport() report {
	return report{
		Date:     time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC),
		Machine:  machine{CPUs: 2, CPUModel: "Test CPU", MemoryGiB: 8, OS: "linux/amd64", LoadBefore: "0.10 0.20 0.30", LoadAfter: "1.00 0.50 0.40"},
		Versions: [][2]string{{"Agentry", "commit abc"}, {"`@langchain/langgraph-api`", "2.0.0"}},
		Phase:    20 * time.Second, Rounds: 3, Warmup: 5 * time.Second,
		Summaries: summarize(fixedPhases()),
		Chart:     "performance-peers.svg",
	}
}

func TestMarkdownShowsMachineVersionsTableAndRatios(t *testing.T) {
	md := fixedReport().markdown()
	for _, want := range []string{
		beginMarker, endMarker,
		"Measured 2026-11-23 21:00 UTC with 20s phases × 3 round(s)",
		"2 CPU(s), Test CPU, 8.0 GiB memory",
		"0.10 0.20 0.30 before, 1.00 0.50 0.40 after",
		"Agentry commit abc, `@langchain/langgraph-api` 2.0.0",
		"![runs/s and p99 latency by concurrent clients](performance-peers.svg)",
		"| 8 | Agentry | 800 | 640–960 | 10 | 20 | 2.0 | 10 | 82 | 300 | 0 |",
		"| 1 | LangGraph | 20 | 16–24 | 500 | 900 | 40 | 40 | 300 | 60 | 3 |",
		"Agentry ÷ LangGraph: runs/s 5.0× at 1, 5.0× at 8; server CPU per run 0.25× at 1, 0.25× at 8.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "rough reading") {
		t.Error("a full-length run is labelled as a rough reading")
	}
	short := fixedReport()
	short.Phase, short.Rounds = 3*time.Second, 1
	if !strings.Contains(short.markdown(), "shorter than the standard 20 s × 3 rounds") {
		t.Error("a short run is not labelled as such")
	}
}

func TestReplaceSectionKeepsTheHandWrittenPart(t *testing.T) {
	section := beginMarker + "\nnew\n" + endMarker + "\n"
	doc := "# Performance\n\nintro\n\n" + beginMarker + "\nold\nfigures\n" + endMarker + "\n\n## After\ntext\n"
	got, err := replaceSection(doc, section)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Performance\n\nintro\n\n" + section + "\n## After\ntext\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	again, err := replaceSection(got, section)
	if err != nil || again != got {
		t.Errorf("replacing twice changed the page: %q, %v", again, err)
	}
}

func TestReplaceSectionAppendsWhenThereAreNoMarkers(t *testing.T) {
	section := beginMarker + "\nx\n" + endMarker + "\n"
	got, err := replaceSection("# Page\nbody", section)
	if err != nil || got != "# Page\nbody\n\n"+section {
		t.Errorf("got %q, %v", got, err)
	}
	got, err = replaceSection("", section)
	if err != nil || got != section {
		t.Errorf("empty page: got %q, %v", got, err)
	}
}

func TestReplaceSectionRefusesBrokenMarkers(t *testing.T) {
	for name, doc := range map[string]string{
		"begin only":  "a\n" + beginMarker + "\nb\n",
		"end only":    "a\n" + endMarker + "\n",
		"end first":   endMarker + "\n" + beginMarker + "\n",
		"two of each": beginMarker + endMarker + beginMarker + endMarker,
	} {
		if _, err := replaceSection(doc, beginMarker+endMarker); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestChartIsWellFormedSVGWithABarPerTargetAndConcurrency(t *testing.T) {
	svg := chartSVG(summarize(fixedPhases()), "caption <&> test")
	dec := xml.NewDecoder(strings.NewReader(svg))
	rects, titles := 0, []string{}
	inTitle := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if e.Name.Local == "rect" {
				rects++
			}
			inTitle = e.Name.Local == "title"
		case xml.CharData:
			if inTitle {
				titles = append(titles, string(e))
			}
		case xml.EndElement:
			inTitle = false
		}
	}
	// Background, two legend swatches, then 2 panels × 2 targets × 2 concurrencies.
	if rects != 1+2+8 {
		t.Errorf("%d rects, want 11", rects)
	}
	for _, want := range []string{"Agentry, 8 client(s): 800", "LangGraph, 1 client(s): 20", "Agentry, 8 client(s): 20", "LangGraph, 8 client(s): 900"} {
		found := false
		for _, got := range titles {
			found = found || got == want
		}
		if !found {
			t.Errorf("no bar titled %q in %q", want, titles)
		}
	}
	if !strings.Contains(svg, "caption &lt;&amp;&gt; test") {
		t.Error("the caption is not escaped")
	}
}

func TestNiceStep(t *testing.T) {
	for raw, want := range map[float64]float64{0.3: 0.5, 1: 1, 1.5: 2, 3: 5, 7: 10, 240: 500, 0: 1} {
		if got := niceStep(raw); got != want {
			t.Errorf("niceStep(%v) = %v, want %v", raw, got, want)
		}
	}
}

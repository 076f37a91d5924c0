//! What the bead programme of `align` sees on two texts given one sentence
//! a line, for fitting the weights of the bead score
//! (`tools/bead_weights/fit.py`; see `tools/bead_weights/dump.sh`).
//!
//! ```sh
//! cargo run --release -p parallels --features tuning --example bead_features -- OUT NAME A.txt B.txt
//! ```
//!
//! Writes `OUT/NAME.json` (each region aligned completely: its sentences,
//! its band's rows, the shapes and the kinds of evidence) and
//! `OUT/NAME.f32` (every bead's unweighted evidence, little-endian
//! float32, NaN outside the band) and `OUT/NAME.align`, the beads `align`
//! gives (`--format ladder`).

use std::io::Write;

use parallels::align::beads::{trace, SHAPES};
use parallels::align::{Aligner, Options};
use parallels::segment::SentenceMode;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, name, a, b] = &args[..] else {
        eprintln!("usage: bead_features OUT NAME A.txt B.txt");
        std::process::exit(2);
    };
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    let (ta, tb) = (read(a), read(b));
    let lines = |t: &str| t.lines().filter(|l| !l.trim().is_empty()).count();
    let opts = Options { sentences: SentenceMode::Lines, ..Options::default() };
    let aligner = Aligner::new(opts);
    trace::take();
    let (pa, pb) = (aligner.prepare(&ta), aligner.prepare(&tb));
    let passages = aligner.align(&pa, &pb);
    let regions = trace::take();
    let ladder = parallels::ladder::beads_of_pair(&pa.seg.sentences, &pb.seg.sentences, &passages);
    let mut values: Vec<u8> = Vec::new();
    let mut meta = Vec::new();
    for r in &regions {
        values.extend(r.values.iter().flat_map(|v| v.to_le_bytes()));
        meta.push(serde_json::json!({
            "region": [r.region.a0, r.region.a1, r.region.b0, r.region.b1],
            "rows": r.rows,
        }));
    }
    let features = regions.first().map(|r| r.features.clone()).unwrap_or_default();
    let doc = serde_json::json!({
        "n": lines(&ta), "m": lines(&tb),
        "shapes": SHAPES, "features": features, "regions": meta, "outside": [],
    });
    let dir = std::path::Path::new(out);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(format!("{name}.json")), doc.to_string()).unwrap();
    std::fs::File::create(dir.join(format!("{name}.f32"))).unwrap().write_all(&values).unwrap();
    std::fs::write(dir.join(format!("{name}.align")), parallels::ladder::write(&ladder)).unwrap();
    if std::env::var_os("OWN_TEXT").is_some() {
        let own = own_text(&regions, [&ta, &tb]);
        std::fs::File::create(dir.join(format!("{name}.own.f32")))
            .unwrap()
            .write_all(&own.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())
            .unwrap();
    }
}

/// Per cell and shape of each region's band: the cosine of the two
/// groups' vectors each encoded from its own text (the sentences joined,
/// with a space unless the text is Chinese) and the groups' chance
/// similarity (mean cosine against 96 sentences of the other side spread
/// over the region); NaN outside the band.
fn own_text(regions: &[trace::RegionTrace], texts: [&str; 2]) -> Vec<f32> {
    use parallels::encoder::{dot, Encoder, DIM};
    let encoder = Encoder::shared();
    let lines: Vec<Vec<&str>> =
        texts.iter().map(|t| t.lines().map(str::trim).filter(|l| !l.is_empty()).collect()).collect();
    let han = |side: usize| {
        lines[side].iter().take(20).flat_map(|l| l.chars()).any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    };
    let max = SHAPES.iter().map(|s| s.0.max(s.1)).max().unwrap() as usize;
    let mut out = Vec::new();
    for r in regions {
        let range = [(r.region.a0 as usize, r.region.a1 as usize), (r.region.b0 as usize, r.region.b1 as usize)];
        // vec[side][k - 1][start]
        let mut vecs: Vec<Vec<Vec<f32>>> = Vec::new();
        for side in 0..2 {
            let (s0, s1) = range[side];
            let sep = if han(side) { "" } else { " " };
            let mut per_k = Vec::new();
            for k in 1..=max {
                let groups: Vec<String> = (s0..s1).map(|s| lines[side][s..(s + k).min(s1)].join(sep)).collect();
                let e = encoder.encode(&groups);
                per_k.push(e.rows().flatten().copied().collect::<Vec<f32>>());
            }
            vecs.push(per_k);
        }
        let sample = |len: usize| -> Vec<usize> {
            let k = len.min(96);
            (0..k).map(|i| i * len / k).collect()
        };
        let (na, nb) = (range[0].1 - range[0].0, range[1].1 - range[1].0);
        let (sa, sb) = (sample(na), sample(nb));
        let chance = |side: usize, k: usize, start: usize| -> f32 {
            let v = &vecs[side][k - 1][start * DIM..][..DIM];
            let (other, smp) = if side == 0 { (&vecs[1][0], &sb) } else { (&vecs[0][0], &sa) };
            smp.iter().map(|&j| dot(v, &other[j * DIM..][..DIM])).sum::<f32>() / smp.len().max(1) as f32
        };
        for (i, &(lo, hi)) in r.rows.iter().enumerate() {
            for j in lo..=hi {
                for &(da, db) in SHAPES.iter() {
                    let (da, db, i, j) = (da as usize, db as usize, i, j as usize);
                    let inside = da <= i && db <= j && {
                        let (l, h) = r.rows[i - da];
                        (l as usize) <= j - db && j - db <= h as usize
                    };
                    if !inside {
                        out.extend([f32::NAN, f32::NAN]);
                        continue;
                    }
                    let (i0, j0) = (i - da, j - db);
                    let cos = dot(&vecs[0][da - 1][i0 * DIM..][..DIM], &vecs[1][db - 1][j0 * DIM..][..DIM]);
                    out.extend([cos, (chance(0, da, i0) + chance(1, db, j0)) / 2.0]);
                }
            }
        }
    }
    out
}

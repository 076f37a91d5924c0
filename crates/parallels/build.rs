//! Unpacks the sentence encoder's model for compilation into the library.
//!
//! The repository holds the model compressed (`model/use-m3.bin.zst`,
//! 31 MB, see `src/encoder/model.rs` for its layout). Decompressing it at
//! run time costs about a second, which `align` would pay on every call;
//! so it is decompressed here, once per build, and the embedding table's
//! 6-bit codes (one per byte in the file) are packed four to three bytes.
//! The result (about 63 MB) is what `include_bytes!` compiles in: at run
//! time nothing is decompressed, and only the table rows a text uses are
//! ever read from the binary.

use std::path::PathBuf;

const MODEL: &str = "model/use-m3.bin.zst";
/// Dtype of a byte tensor in the file, and of its packed form here.
const U8: u8 = 1;
const U6_PACKED: u8 = 3;

fn main() {
    println!("cargo:rerun-if-changed={MODEL}");
    let compressed = std::fs::read(MODEL).unwrap_or_else(|e| panic!("{MODEL}: {e}"));
    let raw = zstd::decode_all(&compressed[..]).unwrap_or_else(|e| panic!("{MODEL}: {e}"));
    let packed = repack(&raw).unwrap_or_else(|e| panic!("{MODEL}: {e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("use-m3.bin");
    std::fs::write(&out, packed).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// The container with `emb.table` packed to 6 bits per code.
fn repack(raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let end = at.checked_add(n).filter(|&e| e <= raw.len()).ok_or("truncated container")?;
        let bytes = &raw[at..end];
        at = end;
        Ok(bytes)
    };
    let mut out = Vec::with_capacity(raw.len());
    let magic = take(8)?;
    if magic != b"PRLUSE01" {
        return Err("not a PRLUSE01 container".into());
    }
    out.extend_from_slice(magic);
    let count = take(4)?;
    out.extend_from_slice(count);
    for _ in 0..u32::from_le_bytes(count.try_into().unwrap()) {
        let name_len = take(1)?[0] as usize;
        let name = take(name_len)?.to_vec();
        let (dtype, rank) = {
            let h = take(2)?;
            (h[0], h[1])
        };
        let dims = take(4 * rank as usize)?.to_vec();
        let len = u64::from_le_bytes(take(8)?.try_into().unwrap()) as usize;
        let bytes = take(len)?;
        let (dtype, bytes) = if name == b"emb.table" && dtype == U8 {
            if bytes.iter().any(|&b| b >= 64) {
                return Err("emb.table holds codes above 6 bits".into());
            }
            (U6_PACKED, pack6(bytes))
        } else {
            (dtype, bytes.to_vec())
        };
        out.push(name_len as u8);
        out.extend_from_slice(&name);
        out.extend_from_slice(&[dtype, rank]);
        out.extend_from_slice(&dims);
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    Ok(out)
}

/// Four 6-bit codes `v0..v3` into three bytes, `v0` in the low bits.
fn pack6(codes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(codes.len() / 4 * 3 + 3);
    for q in codes.chunks(4) {
        let v = |i: usize| q.get(i).copied().unwrap_or(0) as u32;
        let word = v(0) | v(1) << 6 | v(2) << 12 | v(3) << 18;
        out.extend_from_slice(&word.to_le_bytes()[..3]);
    }
    out
}

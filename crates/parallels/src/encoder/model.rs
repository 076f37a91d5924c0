//! The model file: a container of named tensors, written once by
//! `tools/use_model/convert.py` (and zstd-compressed in the repository),
//! unpacked by `build.rs` and compiled into the library.
//!
//! Layout (little endian): the magic `PRLUSE01`, a `u32` tensor count, then
//! per tensor a `u8` name length and the name, a `u8` dtype (0 f32, 1 u8,
//! 2 u32, 3 6-bit codes packed four to three bytes, low bits first), a `u8`
//! rank and that many `u32` dimensions, a `u64` byte length and the bytes.
//! The container is indexed once; byte tensors (the embedding table, the
//! vocabulary) are read where they lie in the binary, numeric ones are
//! copied out into typed vectors.

use std::ops::Range;

use rustc_hash::FxHashMap;

/// A problem with the model file (it is compiled in, so this means a broken
/// build, not bad user input).
#[derive(Debug, thiserror::Error)]
#[error("sentence encoder model: {0}")]
pub struct ModelError(pub(crate) String);

/// One tensor's place in the decompressed container.
#[derive(Debug, Clone)]
pub(crate) struct Tensor {
    pub(crate) dtype: u8,
    pub(crate) dims: Vec<usize>,
    pub(crate) bytes: Range<usize>,
}

/// The container and the index of its tensors.
pub(crate) struct Container {
    pub(crate) data: &'static [u8],
    tensors: FxHashMap<String, Tensor>,
}

const F32: u8 = 0;
const U8: u8 = 1;
const U32: u8 = 2;
pub(crate) const U6_PACKED: u8 = 3;

impl Container {
    /// Index a model file.
    pub(crate) fn open(data: &'static [u8]) -> Result<Container, ModelError> {
        let mut at = Cursor { data, pos: 0 };
        if at.take(8)? != b"PRLUSE01" {
            return Err(ModelError("not a PRLUSE01 container".into()));
        }
        let count = at.u32()? as usize;
        let mut tensors = FxHashMap::default();
        for _ in 0..count {
            let name_len = at.take(1)?[0] as usize;
            let name = std::str::from_utf8(at.take(name_len)?)
                .map_err(|_| ModelError("tensor name is not UTF-8".into()))?
                .to_string();
            let head = at.take(2)?;
            let (dtype, rank) = (head[0], head[1] as usize);
            let dims = (0..rank).map(|_| at.u32().map(|d| d as usize)).collect::<Result<Vec<_>, _>>()?;
            let len = at.u64()? as usize;
            let start = at.pos;
            at.take(len)?;
            let values = dims.iter().product::<usize>();
            let expected = match dtype {
                F32 | U32 => values * 4,
                U8 => values,
                U6_PACKED => values.div_ceil(4) * 3,
                _ => return Err(ModelError(format!("{name}: unknown dtype {dtype}"))),
            };
            if expected != len {
                return Err(ModelError(format!("{name}: {len} bytes for shape {dims:?}")));
            }
            tensors.insert(name, Tensor { dtype, dims, bytes: start..start + len });
        }
        Ok(Container { data, tensors })
    }

    fn get(&self, name: &str, dtype: u8) -> Result<&Tensor, ModelError> {
        let tensor = self.tensors.get(name).ok_or_else(|| ModelError(format!("no tensor {name}")))?;
        if tensor.dtype != dtype {
            return Err(ModelError(format!("{name}: dtype {} where {dtype} expected", tensor.dtype)));
        }
        Ok(tensor)
    }

    /// A float tensor, checked against the expected shape.
    pub(crate) fn f32s(&self, name: &str, dims: &[usize]) -> Result<Vec<f32>, ModelError> {
        let tensor = self.get(name, F32)?;
        if tensor.dims.iter().product::<usize>() != dims.iter().product::<usize>() {
            return Err(ModelError(format!("{name}: shape {:?}, expected {dims:?}", tensor.dims)));
        }
        Ok(self.data[tensor.bytes.clone()]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// A `u32` tensor (any shape).
    pub(crate) fn u32s(&self, name: &str) -> Result<Vec<u32>, ModelError> {
        let tensor = self.get(name, U32)?;
        Ok(self.data[tensor.bytes.clone()]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// Where a byte tensor lies in [`Container::data`], and its shape.
    pub(crate) fn bytes(&self, name: &str) -> Result<&Tensor, ModelError> {
        self.get(name, U8)
    }

    /// Where a tensor of packed 6-bit codes lies, and its shape.
    pub(crate) fn packed6(&self, name: &str) -> Result<&Tensor, ModelError> {
        self.get(name, U6_PACKED)
    }
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ModelError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| ModelError("truncated container".into()))?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, ModelError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, ModelError> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }
}

//! The Parquet writer's binding: `write_parquet`, what `pipeline.native.write_parquet` calls.

use std::collections::{HashMap, HashSet};
use std::ffi::CStr;
use std::io::Write;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use sha2::{Digest, Sha256};

use super::arrow::{batch, FfiArray, FfiSchema};
use super::{write, Options};

/// The struct a capsule of the Arrow PyCapsule interface holds, checked by the capsule's name.
pub(crate) fn capsule<'a, T>(c: &'a Bound<'_, PyCapsule>, name: &CStr) -> PyResult<&'a T> {
    if c.name()? != Some(name) {
        return Err(PyValueError::new_err(format!("not an {name:?} capsule")));
    }
    // SAFETY: a capsule of that name holds that C data interface struct, alive while the
    // capsule is (the caller holds it for the whole call)
    Ok(unsafe { &*c.pointer().cast::<T>() })
}

/// Write `batches` (record batches as `(schema, array)` capsules of `__arrow_c_array__`,
/// one schema) to `path` as one Parquet file (`crate::parquet::write`; Python fsyncs it): each column
/// named in `dictionary`, `statistics` and `delta` written so; `follows`: a column's values by
/// those of an earlier column (a card text by its mask: its dictionary is then found from the
/// mask's, the same bytes); `metadata` the footer's key-value pairs. Returns the file's sha256
/// (hex) and size. The columns are encoded, written and hashed with the GIL let go (an
/// import's other threads go on meanwhile).
#[pyfunction]
#[pyo3(signature = (path, batches, *, dictionary, statistics, delta, follows, metadata))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_parquet(
    py: Python<'_>,
    path: PathBuf,
    batches: Vec<(Bound<'_, PyCapsule>, Bound<'_, PyCapsule>)>,
    dictionary: HashSet<String>,
    statistics: HashSet<String>,
    delta: HashSet<String>,
    follows: HashMap<String, String>,
    metadata: Vec<(String, String)>,
) -> PyResult<(String, u64)> {
    let mut read = Vec::with_capacity(batches.len());
    for (s, a) in &batches {
        let schema: &FfiSchema = capsule(s, c"arrow_schema")?;
        let array: &FfiArray = capsule(a, c"arrow_array")?;
        // SAFETY: the structs are live (above) and valid (the exporter's contract)
        read.push(unsafe { batch(schema, array) }.map_err(PyValueError::new_err)?);
    }
    let options = |name: &str| Options {
        dictionary: dictionary.contains(name),
        statistics: statistics.contains(name),
        delta: delta.contains(name),
        follows: follows.get(name).map(String::as_str),
    };
    py.allow_threads(|| {
        let bytes = write(&read, options, &metadata).map_err(PyValueError::new_err)?;
        let mut f = std::fs::File::create(&path)?;
        f.write_all(&bytes)?;
        Ok((
            crate::rows::hex(&Sha256::digest(&bytes)),
            bytes.len() as u64,
        ))
    })
}

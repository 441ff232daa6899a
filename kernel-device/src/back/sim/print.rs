//! The simulator's print statement: each lane appends the record a GPU thread would
//! append ([`crate::ir::format::record`]) to the launch's print buffer, and a failed
//! `assert!`/`panic!` renders its message at once and panics the lane. The buffer is
//! the caller's ([`PrintSink`]), so the host reads it whatever the launch's outcome.

use std::sync::Arc;

use super::fault::R;
use super::lanes::lanes;
use super::pointer::offset_of;
pub use super::print_sink::PrintSink;
use super::scalar;
use super::values::for_each_scalar;
use super::warp::{Frame, Warp};
use crate::ir::format::record::{self, RecordLayout, RecordOrigin};
use crate::ir::{PrintKind, PrintStmt, ScalarType};

impl PartialEq for PrintSink {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for PrintSink {}

impl Warp<'_, '_> {
    /// Evaluates the arguments left to right, then appends one record per lane (in
    /// lane order) or, for a panic, ends each lane with the rendered message.
    pub(super) fn exec_print(&mut self, fr: &mut Frame, print: &PrintStmt, mask: u32) -> R<u32> {
        let mut live = mask;
        for arg in &print.args {
            live = self.eval(fr, *arg, live)?;
        }
        let func = self.func(fr.func);
        let module = &self.launch.module;
        let Some(format) = module.prints.formats.get(print.format as usize) else {
            return Err(Box::new(super::Fault::Launch(format!(
                "print statement names format {}, which the module does not have",
                print.format
            ))));
        };
        let types = &format.argument_types;
        let Some(layout) = RecordLayout::new(types) else {
            return Err(Box::new(super::Fault::Launch(
                "a print statement's arguments have no memory layout".into(),
            )));
        };
        let slots: Vec<u32> = print.args.iter().map(|a| self.slot_of(fr, *a)).collect();
        let mut payload = vec![0u8; layout.payload_len as usize];
        for lane in lanes(live) {
            payload.fill(0);
            for ((ty, slot), at) in types.iter().zip(&slots).zip(&layout.offsets) {
                let mut write = |address: u64, s: ScalarType, slot: u32| -> R<()> {
                    let bits = scalar::truncate(s, fr.get(slot, lane)).to_le_bytes();
                    let start = *at as usize + offset_of(address) as usize;
                    let size = s.size_bytes() as usize;
                    payload[start..start + size].copy_from_slice(&bits[..size]);
                    Ok(())
                };
                if let Err(super::values::Walk::Fault(f)) =
                    for_each_scalar(ty, 0, *slot, &mut write)
                {
                    return Err(f);
                }
            }
            match print.kind {
                PrintKind::Print => {
                    let Some(sink) = &self.launch.options.prints else {
                        continue;
                    };
                    let origin = self.origin(lane);
                    let mut buffer = sink.0.lock().unwrap_or_else(|p| p.into_inner());
                    record::append_payload(&mut buffer, print.format, origin, &layout, |out| {
                        out.copy_from_slice(&payload)
                    });
                }
                PrintKind::Panic => {
                    let message = record::decode_payload(types, &layout, &payload)
                        .map_err(|e| e.to_string())
                        .and_then(|values| {
                            crate::ir::format::render(&format.program, &values)
                                .map_err(|e| e.to_string())
                        })
                        .unwrap_or_else(|e| format!("(panic message not rendered: {e})"));
                    let _ = func;
                    self.panic_at(fr, print.loc, lane, message);
                }
            }
        }
        Ok(match print.kind {
            PrintKind::Print => live & !self.panicked,
            PrintKind::Panic => 0,
        })
    }

    /// The linear block and thread index of `lane`, as the record header holds them.
    fn origin(&self, lane: usize) -> RecordOrigin {
        let [gx, gy, _] = self.launch.shape.grid.map(u64::from);
        let [bx, by, _] = self.launch.shape.block.map(u32::from);
        let t = self.thread(lane);
        RecordOrigin {
            block: u64::from(t.block[0])
                + u64::from(t.block[1]) * gx
                + u64::from(t.block[2]) * gx * gy,
            thread: t.thread[0] + t.thread[1] * bx + t.thread[2] * bx * by,
        }
    }
}

//! What both extension modules (`assigncheck.spec.native`, `assigncheck.impl.native`) read and make of the model's
//! Python objects.

pub mod slots;

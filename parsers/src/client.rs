//! The output of memconform's SE-mode random client (gem5-configs/client).
// (being written)

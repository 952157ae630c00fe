//! The hand-picked bugs (docs/design/gem5.md §9) as named mutants: each entry
//! is an operator and a site, resolved against the parsed files, so the
//! catalogue's patches are the generator's own and keep their ids.

use std::path::Path;

use super::ops::{self, statement_key};
use super::slicc::{self, Protocol};
use super::{Error, Mutant};

/// Where a catalogue entry edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// A transition header (normalised, `transition(M,{Replacement,Inv},MI)`)
    /// and the operator's operand (`x_copyDataFromCacheToTBE`,
    /// `u_writeDataToCache<->sx_store_hit`, `I->stay`).
    Transition {
        header: &'static str,
        operand: &'static str,
    },
    /// A statement of an action: its kind (`assign`, `enqueue`, ...) and text
    /// (the first occurrence in the action).
    Statement {
        action: &'static str,
        kind: &'static str,
        text: &'static str,
    },
}

/// One catalogue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub name: &'static str,
    pub protocol: &'static str,
    pub file: &'static str,
    pub site: Site,
    pub op: &'static str,
    /// The expected symptom, in a few words.
    pub symptom: &'static str,
}

/// The catalogue: MI-1..6 (MI_example), ME-1..9 (MESI_Two_Level), MH-1..8
/// (MOESI_hammer), MA-1..6 (MOESI_AMD_Base) and CH-1..3 (CHI), picked by
/// reading the v24.0 files (docs/design/gem5.md §9 says which were run).
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "MI-1",
        protocol: "MI_example",
        file: "MI_example-cache.sm",
        site: Site::Transition {
            header: "transition(IM,Data,M)",
            operand: "u_writeDataToCache<->sx_store_hit",
        },
        op: "TSW",
        symptom: "the fill overwrites the store: every store miss is lost",
    },
    Entry {
        name: "MI-2",
        protocol: "MI_example",
        file: "MI_example-cache.sm",
        site: Site::Transition {
            header: "transition(IS,Data,M)",
            operand: "u_writeDataToCache<->rx_load_hit",
        },
        op: "TSW",
        symptom: "the load returns the stale copy or zeros",
    },
    Entry {
        name: "MI-3",
        protocol: "MI_example",
        file: "MI_example-cache.sm",
        site: Site::Transition {
            header: "transition(M,{Replacement,Inv},MI)",
            operand: "x_copyDataFromCacheToTBE",
        },
        op: "TDA",
        symptom: "a writeback racing a forwarded GETX sends the zero TBE: lost writes",
    },
    Entry {
        name: "MI-4",
        protocol: "MI_example",
        file: "MI_example-cache.sm",
        site: Site::Transition {
            header: "transition(M,Fwd_GETX,I)",
            operand: "I->stay",
        },
        op: "TNS-stay",
        symptom: "two owners: stale reads and lost writes, later a deadlock",
    },
    Entry {
        name: "MI-5",
        protocol: "MI_example",
        file: "MI_example-dir.sm",
        site: Site::Statement {
            action: "l_queueMemoryWBRequest",
            kind: "assign",
            text: "out_msg.DataBlk := in_msg.DataBlk;",
        },
        op: "ADS",
        symptom: "writebacks store zeros: reads after an eviction return 0",
    },
    Entry {
        name: "MI-6",
        protocol: "MI_example",
        file: "MI_example-cache.sm",
        site: Site::Transition {
            header: "transition(M,Store)",
            operand: "s_store_hit<->p_profileHit",
        },
        op: "TSW",
        symptom: "none: the CAV'19 swap, an equivalent-mutant control (p_profileHit only profiles)",
    },
    Entry {
        name: "ME-1",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L1cache.sm",
        site: Site::Transition {
            header: "transition(IS,Data_all_Acks,S)",
            operand: "u_writeDataToL1Cache<->hx_load_hit",
        },
        op: "TSW",
        symptom: "stale read from the invalidated I-state copy",
    },
    Entry {
        name: "ME-2",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L1cache.sm",
        site: Site::Transition {
            header: "transition(IM,Data_all_Acks,M)",
            operand: "u_writeDataToL1Cache<->hhx_store_hit",
        },
        op: "TSW",
        symptom: "lost write on every GETX miss with no sharers",
    },
    Entry {
        name: "ME-3",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L1cache.sm",
        site: Site::Transition {
            header: "transition(S,Inv,I)",
            operand: "I->stay",
        },
        op: "TNS-stay",
        symptom: "the copy is kept after the ack: stale reads, then an invalid transition",
    },
    Entry {
        name: "ME-4",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L1cache.sm",
        site: Site::Transition {
            header: "transition(SM,Inv,IM)",
            operand: "forward_eviction_to_cpu",
        },
        op: "TDA",
        symptom: "SE + O3 only: loads reorder (MTraceCheck bug 1)",
    },
    Entry {
        name: "ME-5",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L2cache.sm",
        site: Site::Transition {
            header: "transition(SS,{L1_GETS,L1_GET_INSTR})",
            operand: "nn_addSharer",
        },
        op: "TDA",
        symptom: "an untracked sharer is never invalidated: stale reads",
    },
    Entry {
        name: "ME-6",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L2cache.sm",
        site: Site::Transition {
            header: "transition(MT,L1_PUTX,M)",
            operand: "mr_writeDataToCacheFromRequest",
        },
        op: "TDA",
        symptom: "the dirty writeback is dropped: stale data served later",
    },
    Entry {
        name: "ME-7",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L2cache.sm",
        site: Site::Transition {
            header: "transition(MT_IB,{WB_Data,WB_Data_clean},SS)",
            operand: "m_writeDataToCache",
        },
        op: "TDA",
        symptom: "L2 keeps the pre-downgrade data: stale GETS, lost bytes",
    },
    Entry {
        name: "ME-8",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L1cache.sm",
        site: Site::Transition {
            header: "transition(SM,Inv,IM)",
            operand: "forward_eviction_to_cpu",
        },
        op: "TDA",
        symptom: "gem5 6599dd87c8 (found by McVerSi): an O3 core keeps a load of a line invalidated during its upgrade: load->load reordering, TSO broken; invisible to the testers (needs:o3)",
    },
    Entry {
        name: "ME-9",
        protocol: "MESI_Two_Level",
        file: "MESI_Two_Level-L1cache.sm",
        site: Site::Transition {
            header: "transition(M_I,Fwd_GETX,SINK_WB_ACK)",
            operand: "SINK_WB_ACK->I",
        },
        op: "TNS-sibling",
        symptom: "MTraceCheck's bug 3 in one edit: a writeback raced by a forwarded GETX no longer waits for its WB_Ack (the L1 forgets the race)",
    },
    Entry {
        name: "MH-1",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-cache.sm",
        site: Site::Transition {
            header: "transition(SM,{Other_GETX,Invalidate},IM)",
            operand: "forward_eviction_to_cpu",
        },
        op: "TDA",
        symptom: "ME-8's twin: an upgrading L1 loses its shared copy without telling its O3 core: a load that ran early keeps the old value; load->load reordering, TSO broken (needs:o3)",
    },
    Entry {
        name: "MH-2",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-cache.sm",
        site: Site::Transition {
            header: "transition(S,{Other_GETX,Invalidate},I)",
            operand: "forward_eviction_to_cpu",
        },
        op: "TDA",
        symptom: "an invalidated shared copy is not reported to the O3 core: load->load reordering (needs:o3)",
    },
    Entry {
        name: "MH-3",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-cache.sm",
        site: Site::Transition {
            header: "transition(SM,{Other_GETX,Invalidate},IM)",
            operand: "IM->stay",
        },
        op: "TNS-stay",
        symptom: "a lost invalidation: an upgrading L1 acks but keeps its shared copy and finishes its upgrade on stale data (lost writes)",
    },
    Entry {
        name: "MH-4",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-cache.sm",
        site: Site::Transition {
            header: "transition(M,{Other_GETS,Other_GETS_No_Mig},O)",
            operand: "O->stay",
        },
        op: "TNS-stay",
        symptom: "a wrong owner transfer: M sends shared data but stays exclusive, so its next store is silent; the new sharer reads stale data",
    },
    Entry {
        name: "MH-5",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-dir.sm",
        site: Site::Statement {
            action: "l_queueMemoryWBRequest",
            kind: "assign",
            text: "out_msg.DataBlk := in_msg.DataBlk;",
        },
        op: "ADS",
        symptom: "dirty writebacks reach memory without their data: reads after an eviction return zeros",
    },
    Entry {
        name: "MH-6",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-cache.sm",
        site: Site::Transition {
            header: "transition(MI,Writeback_Ack,I)",
            operand: "t_sendExclusiveDataFromTBEToMemory",
        },
        op: "TDA",
        symptom: "a dropped dirty writeback: the directory waits in WB for the data forever (deadlock)",
    },
    Entry {
        name: "MH-7",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-cache.sm",
        site: Site::Transition {
            header: "transition(OM,{Other_GETX,Invalidate},IM)",
            operand: "pp_incrementNumberOfMessagesByOne",
        },
        op: "TDA",
        symptom: "an owner that loses its line mid-upgrade stops waiting for the new owner's data: the store completes on stale data (lost write)",
    },
    Entry {
        name: "MH-8",
        protocol: "MOESI_hammer",
        file: "MOESI_hammer-cache.sm",
        site: Site::Transition {
            header: "transition(O,{Other_GETX,Invalidate},I)",
            operand: "forward_eviction_to_cpu",
        },
        op: "TDA",
        symptom: "an owner that loses its line does not tell its O3 core: a load that ran early keeps the old value; message passing breaks TSO (run: 47 of 300 mp rounds, gem5 ends cleanly; needs:o3)",
    },
    Entry {
        name: "MA-1",
        protocol: "MOESI_AMD_Base",
        file: "MOESI_AMD_Base-CorePair.sm",
        site: Site::Transition {
            header: "transition({Ms,M0,M1,O,Es,E0,E1,S,I},PrbInv,I)",
            operand: "forward_eviction_to_cpu0",
        },
        op: "TDA",
        symptom: "a probe invalidates the pair's line without telling core 0: its O3 loads that ran early keep the old value (needs:o3; the writer must sit in the other CorePair)",
    },
    Entry {
        name: "MA-2",
        protocol: "MOESI_AMD_Base",
        file: "MOESI_AMD_Base-CorePair.sm",
        site: Site::Transition {
            header: "transition({Ms,M0,M1,O,Es,E0,E1,S,I},PrbInv,I)",
            operand: "ib_invBothClusters",
        },
        op: "TDA",
        symptom: "a lost invalidation: the L2 drops the line but the pair's L1s keep it; stale reads",
    },
    Entry {
        name: "MA-3",
        protocol: "MOESI_AMD_Base",
        file: "MOESI_AMD_Base-CorePair.sm",
        site: Site::Transition {
            header: "transition({Ms,M0,M1,O},PrbShrData,O)",
            operand: "O->stay",
        },
        op: "TNS-stay",
        symptom: "a wrong owner transfer: a modified pair shares its data but stays exclusive, so its next store is silent",
    },
    Entry {
        name: "MA-4",
        protocol: "MOESI_AMD_Base",
        file: "MOESI_AMD_Base-CorePair.sm",
        site: Site::Transition {
            header: "transition({Ms,M0,M1,O},PrbInvData,I)",
            operand: "i2_invL2",
        },
        op: "TDA",
        symptom: "the L2 keeps a dirty line it handed over with the probe: two owners, lost writes",
    },
    Entry {
        name: "MA-5",
        protocol: "MOESI_AMD_Base",
        file: "MOESI_AMD_Base-dir.sm",
        site: Site::Statement {
            action: "d_writeDataToMemory",
            kind: "assign",
            text: "out_msg.DataBlk := in_msg.DataBlk;",
        },
        op: "ADS",
        symptom: "dirty victims reach memory without their data: reads after an eviction return zeros",
    },
    Entry {
        name: "MA-6",
        protocol: "MOESI_AMD_Base",
        file: "MOESI_AMD_Base-CorePair.sm",
        site: Site::Transition {
            header: "transition({Ms,M0,M1,O},PrbInvData,I)",
            operand: "forward_eviction_to_cpu1",
        },
        op: "TDA",
        symptom: "a probe takes a modified line without telling core 1 (needs:o3)",
    },
    Entry {
        name: "CH-1",
        protocol: "CHI",
        file: "CHI-cache-transitions.sm",
        site: Site::Transition {
            header: "transition({UD,SD,UC,SC,UD_RSC,SD_RSC,UC_RSC,UD_RU,UC_RU,RU,RUSD,RUSC,RSD,UD_RSD,SD_RSD,SC_RSC,RSC},{SnpUnique,SnpUniqueFwd,SnpCleanInvalid},BUSY_BLKD)",
            operand: "Profile_Eviction",
        },
        op: "TDA",
        symptom: "ME-8's twin on CHI: an invalidating snoop takes the line without telling the core: its exclusive monitor stays set (a STXR succeeds after another core's write: LDXR/STXR atomicity lost, any CPU) and an O3 load that ran early keeps the old value",
    },
    Entry {
        name: "CH-2",
        protocol: "CHI",
        file: "CHI-cache-transitions.sm",
        site: Site::Transition {
            header: "transition({UD,SD,UC},Local_Eviction,BUSY_BLKD)",
            operand: "Profile_Eviction",
        },
        op: "TDA",
        symptom: "a replaced line is not reported to the core: the exclusive monitor outlives the line (an STXR after another core's write succeeds) and an O3 load that ran early keeps its value",
    },
    Entry {
        name: "CH-3",
        protocol: "CHI",
        file: "CHI-cache-actions.sm",
        site: Site::Statement {
            action: "Profile_Eviction",
            kind: "call",
            text: "sequencer.evictionCallback(address);",
        },
        op: "ADS",
        symptom: "no CHI cache tells its core of any eviction (CH-1 and CH-2 and every other one at once): exclusive monitors never clear, O3 loads keep stale values",
    },
];

/// The catalogue's configuration bugs: gem5 parameters that break what a
/// configuration promises, set at run time (`--param`), no rebuild. `{l1}`
/// stands for the protocol's first L1 controller ([`l1_controller`]).
pub const CONFIG_ENTRIES: &[(&str, &str, &str)] = &[
    (
        "CF-1",
        "system.cpu[:].needsTSO=False",
        "gem5 b884fcf412 undone: the O3 load queue no longer squashes a load whose line another core takes; message passing breaks x86-TSO (an SE run on X86O3CPU; testers never see it)",
    ),
    (
        "CF-2",
        "{l1}.send_evictions=False",
        "CPU 0's L1 no longer tells its core when a line leaves (every forward_eviction_to_cpu of one L1 at once): its O3 loads that ran early keep stale values; x86-TSO broken (an SE run on X86O3CPU with Ruby; testers never see it)",
    ),
];

/// The path of the first CPU's L1 controller in `protocol`'s gem5
/// system: `system.ruby.l1_cntrl0`, but `system.cp_cntrl0` (a CorePair,
/// outside `system.ruby`) for MOESI_AMD_Base and `system.cpu[0].l1d` for
/// CHI (`CHI_config.py` hangs each core's L1 data cache on the core).
pub fn l1_controller(protocol: &str) -> &'static str {
    match protocol {
        "MOESI_AMD_Base" => "system.cp_cntrl0",
        "CHI" => "system.cpu[0].l1d",
        _ => "system.ruby.l1_cntrl0",
    }
}

/// Whether configuration entry `name` applies to `protocol`'s builds: CF-1
/// turns off x86's `needsTSO`, which gem5's ARM cores (CHI is
/// `build_opts/ARM`'s protocol) have off already: an equivalent mutant.
fn applies(name: &str, protocol: &str) -> bool {
    !(name == "CF-1" && protocol == "CHI")
}

/// The configuration bugs as named mutants of `protocol`'s system (for
/// runs of se.py: the Ruby testers' scripts take no `--param`).
pub fn config_catalogue(protocol: &str) -> Vec<(String, Mutant)> {
    CONFIG_ENTRIES
        .iter()
        .filter(|(name, _, _)| applies(name, protocol))
        .map(|(name, param, _)| {
            let param = param.replace("{l1}", l1_controller(protocol));
            let m = Mutant::config(&param).expect("the catalogue's parameters are assignments");
            (name.to_string(), m)
        })
        .collect()
}

/// The whitespace- and comment-free form of a statement's text.
fn compact(text: &str) -> String {
    match slicc::lex("<catalogue>", text) {
        Ok(tokens) => tokens.iter().map(|t| &text[t.start..t.end]).collect(),
        Err(_) => text.split_whitespace().collect(),
    }
}

/// The entry's descriptor, as the generator writes it.
pub fn descriptor(e: &Entry) -> String {
    match e.site {
        Site::Transition { header, operand } => {
            format!("{}::{header}::{operand}::{}", e.file, e.op)
        }
        Site::Statement { action, kind, text } => format!(
            "{}::action({action})::{}::{}",
            e.file,
            statement_key(kind, &compact(text), 0),
            e.op
        ),
    }
}

/// The catalogue's mutants for a loaded protocol, as (name, mutant); an
/// entry that names no generated site is an error naming it.
pub fn resolve(p: &Protocol) -> Result<Vec<(String, Mutant)>, Error> {
    let all = ops::candidates(p, true);
    let mut out = Vec::new();
    for e in ENTRIES.iter().filter(|e| e.protocol == p.name) {
        let d = descriptor(e);
        let Some(c) = all.iter().find(|c| c.descriptor == d) else {
            return Err(Error::Catalogue(format!(
                "catalogue entry {} does not resolve in {}: no site {d}",
                e.name, p.name
            )));
        };
        out.push((e.name.to_string(), ops::materialize(p, c)?));
    }
    Ok(out)
}

/// Loads `protocol` (gem5 root or protocol directory) and resolves its
/// catalogue entries (see [`resolve`]).
pub fn catalogue(path: &Path, protocol: &str) -> Result<Vec<(String, Mutant)>, Error> {
    resolve(&slicc::load_protocol(path, protocol)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CF-2 names the first L1 controller of the campaign's protocol: the
    /// MESI and MOESI_hammer campaigns' id is kept, MOESI_AMD_Base's
    /// CorePair sits outside `system.ruby`.
    #[test]
    fn cf2_names_the_protocols_own_l1_controller() {
        let param = |protocol: &str| {
            let all = config_catalogue(protocol);
            let (_, m) = all.iter().find(|(n, _)| n == "CF-2").unwrap();
            (m.id.clone(), m.site.clone())
        };
        for protocol in ["MI_example", "MESI_Two_Level", "MOESI_hammer"] {
            assert_eq!(param(protocol).0, "8ef9fb6fd865", "{protocol}");
        }
        let (id, site) = param("MOESI_AMD_Base");
        assert_ne!(id, "8ef9fb6fd865");
        assert!(
            site.contains("system.cp_cntrl0.send_evictions=False"),
            "{site}"
        );
        let (_, site) = param("CHI");
        assert!(
            site.contains("system.cpu[0].l1d.send_evictions=False"),
            "{site}"
        );
    }

    /// CF-1 (x86's needsTSO off) is left out of CHI's (ARM's) catalogue:
    /// ARM cores have it off already.
    #[test]
    fn cf1_is_x86s_only() {
        let names = |protocol: &str| -> Vec<String> {
            config_catalogue(protocol)
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        assert_eq!(names("MESI_Two_Level"), ["CF-1", "CF-2"]);
        assert_eq!(names("CHI"), ["CF-2"]);
    }
}

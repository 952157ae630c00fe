//! Input features beyond plain chains of reads and writes: timed threads
//! (interval program order), fences, RMWs; and the shape of certificates.

use std::path::Path;

use memconform::certificate::validate;
use memconform::certificate::Pattern;
use memconform::history::History;
use memconform::ingest::load_bytes;
use memconform::models::Model;

fn one(text: &str) -> History {
    let mut hs =
        load_bytes(text.as_bytes(), Path::new("test.hist")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hs.len(), 1);
    hs.remove(0)
}

fn holds(h: &History, m: Model) -> bool {
    m.check(h).is_ok()
}

#[test]
fn overlapping_requests_are_not_program_ordered() {
    // CoWR0 as a chain: a read after an own write returns the initial value.
    let chain = one("t0: W(x,1) R(x,0)\n");
    assert!(!holds(&chain, Model::Cc));
    // The same two requests in flight at once (issued at 5, before the write completes at 10):
    // neither precedes the other, so the read may see the initial value.
    let overlapping = one("t0: W(x,1)@0-10 R(x,0)@5-15\n");
    assert!(!overlapping.po().get(
        overlapping.threads[0].ops.start,
        overlapping.threads[0].ops.start + 1
    ));
    for m in Model::ALL {
        assert!(holds(&overlapping, m), "{m}");
    }
    // Once the write completes before the read is issued, they are ordered again.
    let ordered = one("t0: W(x,1)@0-10 R(x,0)@11-15\n");
    assert!(!holds(&ordered, Model::Cc));
}

#[test]
fn interval_order_is_transitive_and_partial() {
    let h = one("t0: W(x,1)@0-10 W(x,2)@5-20 R(x,2)@21-30 W(y,1)@12-13\n");
    let s = h.threads[0].ops.start;
    let po = h.po();
    assert!(po.get(s, s + 2) && po.get(s + 1, s + 2) && po.get(s, s + 3));
    assert!(
        !po.get(s, s + 1) && !po.get(s + 1, s) && !po.get(s + 1, s + 3) && !po.get(s + 3, s + 1)
    );
}

#[test]
fn fences_restore_store_buffering_order_for_wccm() {
    let sb = one("t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
    let sb_fenced = one("t0: W(x,1) F R(y,0)\nt1: W(y,1) F R(x,0)\n");
    assert!(holds(&sb, Model::Wccm), "SB is TSO, hence wCCM");
    let v = Model::Wccm.check(&sb_fenced).unwrap_err();
    assert_eq!(v.pattern, Pattern::CyclicWpwwPpo);
    // The causal models see a fence as program order only.
    for m in [Model::Cc, Model::Ccv, Model::Cm] {
        assert_eq!(holds(&sb, m), holds(&sb_fenced, m), "{m}");
    }
}

#[test]
fn an_rmw_is_its_read_then_its_write() {
    let rmw = one("t0: U(x,0,1)\nt1: U(x,1,2) R(x,2)\n");
    let plain = one("t0: R(x,0) W(x,1)\nt1: R(x,1) W(x,2) R(x,2)\n");
    for m in Model::ALL {
        assert_eq!(holds(&rmw, m), holds(&plain, m), "{m}");
    }
    assert_eq!(rmw.n(), plain.n());
    // Two RMWs that both read the initial value are not atomic, but the
    // polynomial models only approximate: they accept (SC/TSO will not).
    let lost_update = one("t0: U(x,0,1)\nt1: U(x,0,2)\n");
    assert!(holds(&lost_update, Model::Wsc));
}

#[test]
fn a_thin_air_read_violates_every_model_and_is_named() {
    let h = one("t0: W(x,1)\nt1: R(x,7)\n");
    for m in Model::ALL {
        let v = m.check(&h).unwrap_err();
        assert_eq!(v.pattern, Pattern::ThinAirRead, "{m}");
        assert!(v.explain(&h).contains("t1:R(x,7)@2:5"), "{}", v.explain(&h));
    }
}

/// Every violation's certificate passes the independent validator.
fn assert_well_formed(h: &History, m: Model) {
    if let Err(v) = m.check(h) {
        if let Err(e) = validate::violation(h, &v) {
            panic!("{m}: {e}: {}", v.explain(h));
        }
        if v.pattern != Pattern::ThinAirRead && v.pattern != Pattern::NoStoreOrder {
            assert!(!v.cycle.is_empty(), "{m}: a cycle");
        }
    }
}

#[test]
fn certificates_are_cycles_of_real_edges() {
    use memconform::gen::Rng;
    let mut rng = Rng::new(7);
    let mut violations = 0;
    for _ in 0..3000 {
        // random small histories with stale reads
        let threads = 1 + rng.below(4);
        let mut text = String::new();
        let mut next = [1u64; 3];
        for t in 0..threads {
            text.push_str(&format!("t{t}:"));
            for _ in 0..1 + rng.below(4) {
                let x = rng.below(3);
                if rng.chance(0.5) {
                    text.push_str(&format!(" W(v{x},{})", next[x]));
                    next[x] += 1;
                } else {
                    let v = rng.below(next[x] as usize + 1) as u64;
                    text.push_str(&format!(" R(v{x},{})", v.min(next[x] + 2)));
                }
            }
            text.push('\n');
        }
        let h = one(&text);
        for m in Model::EVERY {
            violations += m.check(&h).is_err() as usize;
            assert_well_formed(&h, m);
        }
    }
    assert!(violations > 1000, "{violations}");
}

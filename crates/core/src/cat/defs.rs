//! The models' definitions, each once, in the language of [`super`], with
//! the paper and section each line follows. Precedence, loosest first:
//! `|`, `\`, `&`, `;`, postfix (`+ * ? ^-1`); `R_AB` of the papers is
//! `[A] ; R ; [B] & loc`.

/// The names a definition can be included by, in [`crate::models::Model`]
/// order, then the shared parts.
pub const NAMES: [&str; 13] = [
    "cc", "ccv", "cm", "ccm", "wccm", "wsc", "sc", "tso", "pso", "rmo", "armv8", "thin-air",
    "store",
];

/// The text of definition `name`.
pub fn text(name: &str) -> Option<&'static str> {
    Some(match name {
        "thin-air" => THIN_AIR,
        "store" => STORE,
        "cc" => CC,
        "ccv" => CCV,
        "cm" => CM,
        "ccm" => CCM,
        "wccm" => WCCM,
        "wsc" => WSC,
        "sc" => SC,
        "tso" => TSO,
        "pso" => PSO,
        "rmo" => RMO,
        "armv8" => ARMV8,
        _ => return None,
    })
}

/// Every model: `wr⁻¹` is total (gradual-consistency-checking Def. 1).
const THIN_AIR: &str = r"
(* ThinAirRead: a read of a value never written *)
empty [R \ ran(wr)] as ThinAirRead
(* ThinAirFinal: an @final of a value no write of its variable wrote *)
empty [Fin \ dom(fin)] as ThinAirFinal
";

/// What every store order `ww` must satisfy besides acyclicity
/// (consistency-framework-2k §4.2; docs/design/gradual.md §4).
const STORE: &str = r"
let rw = wr^-1 ; ww
(* RMW atomicity: an RMW's write immediately follows the write its read half reads *)
empty rmw \ (rw \ rw ; ww) as atomicity
(* @final x=v: the write of v is the last of x *)
empty fin ; ww as final
";

const CC: &str = r"
(* CC, weak causal consistency: causal-consistency-datalog §3.2, Lemma 1, Table 3 *)
include thin-air
let co = (po | wr)+
(* CyclicCO *)
acyclic po | wr as CyclicCO
(* WriteCORead: w1 wr r1, w1 co w2 co r1, w2 another write of r1's variable;
   that is rw[co] ; co reflexive, rw[co] = wr^-1 ; co_WW *)
let co-ww = [W] ; co ; [W] & loc \ id
irreflexive wr^-1 ; [IW] ; co-ww ; co as WriteCOInitRead
irreflexive wr^-1 ; [W \ IW] ; co-ww ; co as WriteCORead
";

const CCV: &str = r"
(* CCv, causal convergence: causal-consistency-datalog §3.2, Lemma 2 *)
include cc
(* cf = cf[co] = co_WR ; wr^-1, the two writes distinct *)
let cf = ([W] ; co ; [R] & loc) ; wr^-1 \ id
acyclic po | wr | cf as CyclicCF
";

const CM: &str = r"
(* CM, causal memory: causal-consistency-datalog §3.2 Def. 4, Lemma 3 *)
include cc
(* hb_o: the least transitive relation containing co on CausalPast(o) and o,
   closed under rule 2: w hb_o r, w' wr r, w != w', r po* o => w hb_o w' *)
let Past(o) = dom(co? ; [o])
let Before(o) = dom(po? ; [o])
let rec hb_o(o) = ([Past(o)] ; co ; [Past(o)]
                  | ([W] ; hb_o(o) ; [R & Before(o)] ; wr^-1 & loc) \ id)+
(* WriteHBInitRead: a write hb_o-before a read r po* o of the initial value *)
forall o: empty ([W \ IW] ; hb_o(o) ; [R & Before(o)] ; wr^-1 ; [IW] & loc) as WriteHBInitRead
forall o: acyclic hb_o(o) as CyclicHB
";

const CCM: &str = r"
(* CCM, convergent causal memory: gradual-consistency-checking §3.2 *)
include thin-air
let co = (po | wr)+
acyclic po | wr as CyclicCO
(* hb_o of causal-consistency-datalog Def. 4 (as CM's) *)
let Past(o) = dom(co? ; [o])
let Before(o) = dom(po? ; [o])
let rec hb_o(o) = ([Past(o)] ; co ; [Past(o)]
                  | ([W] ; hb_o(o) ; [R & Before(o)] ; wr^-1 & loc) \ id)+
forall o: acyclic hb_o(o) as CyclicPww
(* hb = (U_o hb_o)+; pww = (hb_WW | cf[hb])+ *)
let hb = (union o. hb_o(o))+
let pww = ([W] ; hb ; [W] & loc \ id | ([W] ; hb ; [R] & loc) ; wr^-1 \ id)+
(* rw[pww] = wr^-1 ; pww_WW *)
let rw = wr^-1 ; (pww \ id)
acyclic po | wr | pww | rw as CyclicPww
";

const WCCM: &str = r"
(* wCCM, weak convergent causal memory: gradual-consistency-checking §4.1 *)
include thin-air
(* ppo = (po \ (W x R))+; a partial fence orders nothing here *)
let po' = [_ \ (Fld | Fst)] ; po ; [_ \ (Fld | Fst)]
let ppo = (po' \ [W] ; po ; [R])+
let po-loc = po & loc
let wre = wr \ (po | po^-1)
(* hb^pi_o as hb_o on co_pi = (pi | wre)+, rule 2 along pi*, pi in {ppo, po-loc} *)
let co-ppo = (ppo | wre)+
acyclic ppo | wre as CyclicWpwwPpo
let rec hb-ppo_o(o) = ([dom(co-ppo? ; [o])] ; co-ppo ; [dom(co-ppo? ; [o])]
   | ([W] ; hb-ppo_o(o) ; [R & dom(ppo? ; [o])] ; wr^-1 & loc) \ id)+
forall o: acyclic hb-ppo_o(o) as CyclicWpwwPpo
let co-loc = (po-loc | wre)+
acyclic po-loc | wre as CyclicWpwwPoLoc
let rec hb-loc_o(o) = ([dom(co-loc? ; [o])] ; co-loc ; [dom(co-loc? ; [o])]
   | ([W] ; hb-loc_o(o) ; [R & dom(po-loc? ; [o])] ; wr^-1 & loc) \ id)+
forall o: acyclic hb-loc_o(o) as CyclicWpwwPoLoc
(* hb^pi = (U_o hb^pi_o)+, whb = (hb^ppo | hb^po-loc)+ *)
let hb-ppo = (union o. hb-ppo_o(o))+
let hb-loc = (union o. hb-loc_o(o))+
let whb = (hb-ppo | hb-loc)+
(* wpww = (whb_WW | cfe[hb^po-loc] | cfe[hb^ppo])+, cfe[R] = R_WR ; wre^-1 *)
let wpww = ([W] ; whb ; [W] & loc \ id
           | ([W] ; hb-loc ; [R] & loc) ; wre^-1 \ id
           | ([W] ; hb-ppo ; [R] & loc) ; wre^-1 \ id)+
let rw = wr^-1 ; (wpww \ id)
acyclic ppo | wre | wpww | rw as CyclicWpwwPpo
acyclic po-loc | wre | wpww | rw as CyclicWpwwPoLoc
";

const WSC: &str = r"
(* wSC, weak sequential consistency: wsc-saturation §3 *)
include thin-air
acyclic po | wr as CyclicCO
(* the least st and hb with st = ((hb_WR ; wr^-1) | hb_WW)+
   and hb = (po | wr | st | rw[st])+, rw[st] = wr^-1 ; st_WW *)
let rec st = (([W] ; hb ; [R] & loc) ; wr^-1 \ id | [W] ; hb ; [W] & loc \ id)+
    and hb = (po | wr | st | wr^-1 ; (st \ id))+
acyclic hb as CyclicSt
";

const SC: &str = r"
(* SC given a store order ww: gradual-consistency-checking §2;
   consistency-framework-2k §4.2 (po-sc = po, rf-sc = rf: G_loc is implied) *)
include thin-air
include store
acyclic po | wr | ww | rw as CyclicSc
";

const TSO: &str = r"
(* TSO given a store order ww: consistency-framework-2k §4.2 *)
include thin-air
include store
(* po-tso = ppo = (po \ (plain W x plain R))+: a store buffer; an RMW
   (U) drains it; a partial fence orders nothing TSO relaxes *)
let po' = [_ \ (Fld | Fst)] ; po ; [_ \ (Fld | Fst)]
let ppo = (po' \ [W \ U] ; po ; [R \ U])+
let po-loc = po & loc
(* rf-tso = wre *)
let wre = wr \ (po | po^-1)
acyclic po-loc | wr | ww | rw as CyclicUniproc
acyclic ppo | wre | ww | rw as CyclicTso
";

const PSO: &str = r"
(* PSO given a store order ww: consistency-framework-2k §4.2 *)
include thin-air
include store
(* po-pso: a store buffer per variable drops (plain W, plain R) and
   (plain W, store of another variable); an RMW drains its own variable's *)
let po' = [_ \ (Fld | Fst)] ; po ; [_ \ (Fld | Fst)]
let po-pso = (po' \ ([W \ U] ; po ; [R \ U] | [W \ U] ; po ; [W | U] \ loc))+
let po-loc = po & loc
let wre = wr \ (po | po^-1)
acyclic po-loc | wr | ww | rw as CyclicUniproc
acyclic po-pso | wre | ww | rw as CyclicPso
";

const RMO: &str = r"
(* RMO given a store order ww: consistency-framework-2k §4.2, docs/design/weak.md §2 *)
include thin-air
include store
(* G_loc without load-load hazards: po-loc_llh = po-loc \ (R x R) *)
let po-loc = po & loc \ [R] ; po ; [R]
(* po-rmo = dp (here empty) and what fences order, between thread accesses:
   F everything, F.ld a read before anything, F.st a write before a write *)
let po-rmo = [M \ IW] ; (po ; [Ffull] ; po
                        | [R] ; po ; [Fld] ; po
                        | [W] ; po ; [Fst] ; po ; [W]) ; [M]
let wre = wr \ (po | po^-1)
acyclic po-loc | wr | ww | rw as CyclicUniproc
acyclic po-rmo | wre | ww | rw as CyclicRmo
";

const ARMV8: &str = r"
(* ARMv8 given a store order ww: herd7's aarch64.cat (the ARMv8 ARM B2.3),
   dob empty (docs/design/weak.md §3); co is ww, fr is rw *)
include thin-air
(* atomic, empty rmw & (fre; coe), as the framework's atomicity (weak.md §3),
   which also holds within a thread whose po is an interval order; @final *)
include store
let po-loc = po & loc
(* internal *)
acyclic po-loc | wr | rw | ww as CyclicUniproc
let rfe = wr & ext
let coe = ww & ext
let fre = rw & ext
let obs = rfe | fre | coe
let aob = rmw | rmw ; (wr & int)
(* bob, between thread accesses: po; [dmb.full]; po | [L]; po; [A]
   | [R]; po; [dmb.ld]; po | [A | Q]; po | [W]; po; [dmb.st]; po; [W]
   | po; [L] | po; [L]; coi *)
let bob = [M \ IW] ; (po ; [Ffull] ; po
                     | [L] ; po ; [A]
                     | [R] ; po ; [Fld] ; po
                     | [A | Q] ; po
                     | [W] ; po ; [Fst] ; po ; [W]
                     | po ; [L]
                     | po ; [L] ; (ww & int)) ; [M]
(* external *)
acyclic obs | aob | bob as CyclicOb
";

; An unsatisfiable query that yices 2.6.4 (halmos's default solver) answers `sat` to; z3 answers
; `unsat`. It is the shape of the admin property's check that a signed PDR moves its nonce lane
; one step: the lane's sequence `x` (bits 160-223 of the terms) is 0, the account stores `x + 1`
; at the lane's slot (index `i`, the lane key from bits 224-255 of the terms), and the lane read
; back (index `j`, lane 7) is neither 0 (i != j, slot empty) nor 1 (i == j). yices's model sets
; the read to 0x8000000000000001, violating the store. Hence `--solver z3` for that suite in
; tests/halmos/prove.py. Check: `.venv-proofs/bin/yices-smt2 <this file>` and
; `.venv-proofs/bin/z3 <this file>`.
(set-logic QF_AUFBV)
(declare-fun t () (_ BitVec 256))
(declare-fun E () (Array (_ BitVec 512) (_ BitVec 256)))
(declare-fun S () (Array (_ BitVec 512) (_ BitVec 256)))
(define-fun j () (_ BitVec 512) (concat (_ bv7 256) (_ bv0 256)))
(define-fun i () (_ BitVec 512) (concat (_ bv0 224) ((_ extract 255 224) t) (_ bv0 256)))
(assert (= (select E j) (_ bv0 256)))
(assert (= (select E i) (_ bv0 256)))
(assert (= ((_ extract 223 160) t) (_ bv0 64)))
(assert (= S (store E i (concat (_ bv0 192) (bvadd (_ bv1 64) ((_ extract 223 160) t))))))
(assert (not (= ((_ extract 63 0) (select S j)) (_ bv0 64))))
(assert (not (= ((_ extract 63 0) (select S j)) (_ bv1 64))))
(check-sat)

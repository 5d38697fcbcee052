;; XXH3-64 (seed 0, default secret) for the VSR message batch, as WebAssembly with native 64-bit
;; multiplies: the plain-JavaScript XXH3 has to build every 64x64 product from 16-bit pieces, and a
;; 1,000-frame batch spends most of its encode (client) and admission (server) time there.
;; `frames` hashes every frame of a batch in one call, so the per-call cost into WebAssembly is
;; paid once per batch, not once per frame.
;;
;; Built by `node scripts/build-wasm.mjs` (wabt's wat2wasm, pinned in devDependencies) into
;; src/internal/xxh3-wasm-binary.ts; a test rebuilds it and compares the bytes.
;;
;; Memory: bytes 0..191 are XXH3_kSecret, 192..255 the eight accumulators of the long path;
;; callers place inputs from byte 256 on. Reads are unaligned little-endian i64 loads.
(module
    (memory (export "memory") 1)
  (data (i32.const 0)
    "\b8\fe\6c\39\23\a4\4b\be\7c\01\81\2c\f7\21\ad\1c\de\d4\6d\e9\83\90\97\db\72\40\a4\a4\b7\b3\67\1f"
    "\cb\79\e6\4e\cc\c0\e5\78\82\5a\d0\7d\cc\ff\72\21\b8\08\46\74\f7\43\24\8e\e0\35\90\e6\81\3a\26\4c"
    "\3c\28\52\bb\91\c3\00\cb\88\d0\65\8b\1b\53\2e\a3\71\64\48\97\a2\0d\f9\4e\38\19\ef\46\a9\de\ac\d8"
    "\a8\fa\76\3f\e3\9c\34\3f\f9\dc\bb\c7\c7\0b\4f\1d\8a\51\e0\4b\cd\b4\59\31\c8\9f\7e\c9\d9\78\73\64"
    "\ea\c5\ac\83\34\d3\eb\c3\c5\81\a0\ff\fa\13\63\eb\17\0d\dd\51\b7\f0\da\49\d3\16\55\26\29\d4\68\9e"
    "\2b\16\be\58\7d\47\a1\fc\8f\f8\b8\d1\7a\d0\31\ce\45\cb\3a\8f\95\16\04\28\af\d7\fb\ca\bb\4b\40\7e")

  ;; XXH3_mul128_fold64: the 128-bit product of a and b, its halves xored, from four 32x32 products.
  (func $fold (param $a i64) (param $b i64) (result i64)
    (local $al i64) (local $ah i64) (local $bl i64) (local $bh i64)
    (local $ll i64) (local $hl i64) (local $lh i64) (local $cross i64)
    (local.set $al (i64.and (local.get $a) (i64.const 0xffffffff)))
    (local.set $ah (i64.shr_u (local.get $a) (i64.const 32)))
    (local.set $bl (i64.and (local.get $b) (i64.const 0xffffffff)))
    (local.set $bh (i64.shr_u (local.get $b) (i64.const 32)))
    (local.set $ll (i64.mul (local.get $al) (local.get $bl)))
    (local.set $hl (i64.mul (local.get $ah) (local.get $bl)))
    (local.set $lh (i64.mul (local.get $al) (local.get $bh)))
    (local.set $cross (i64.add (i64.add (i64.shr_u (local.get $ll) (i64.const 32))
                                       (i64.and (local.get $hl) (i64.const 0xffffffff)))
                              (local.get $lh)))
    ;; lower ^ upper
    (i64.xor
      (i64.or (i64.shl (local.get $cross) (i64.const 32)) (i64.and (local.get $ll) (i64.const 0xffffffff)))
      (i64.add (i64.add (i64.shr_u (local.get $hl) (i64.const 32)) (i64.shr_u (local.get $cross) (i64.const 32)))
               (i64.mul (local.get $ah) (local.get $bh)))))

  ;; XXH3_mix16B: $fold of the two input words xored with the secret's, written out here rather
  ;; than called (a frame of a 100-byte message runs this nine times, and the engine does not
  ;; inline the call).
  (func $mix16 (param $p i32) (param $s i32) (result i64)
    (local $a i64) (local $b i64)
    (local $al i64) (local $ah i64) (local $bl i64) (local $bh i64)
    (local $ll i64) (local $hl i64) (local $lh i64) (local $cross i64)
    (local.set $a (i64.xor (i64.load (local.get $p)) (i64.load (local.get $s))))
    (local.set $b (i64.xor (i64.load offset=8 (local.get $p)) (i64.load offset=8 (local.get $s))))
    (local.set $al (i64.and (local.get $a) (i64.const 0xffffffff)))
    (local.set $ah (i64.shr_u (local.get $a) (i64.const 32)))
    (local.set $bl (i64.and (local.get $b) (i64.const 0xffffffff)))
    (local.set $bh (i64.shr_u (local.get $b) (i64.const 32)))
    (local.set $ll (i64.mul (local.get $al) (local.get $bl)))
    (local.set $hl (i64.mul (local.get $ah) (local.get $bl)))
    (local.set $lh (i64.mul (local.get $al) (local.get $bh)))
    (local.set $cross (i64.add (i64.add (i64.shr_u (local.get $ll) (i64.const 32))
                                       (i64.and (local.get $hl) (i64.const 0xffffffff)))
                              (local.get $lh)))
    (i64.xor
      (i64.or (i64.shl (local.get $cross) (i64.const 32)) (i64.and (local.get $ll) (i64.const 0xffffffff)))
      (i64.add (i64.add (i64.shr_u (local.get $hl) (i64.const 32)) (i64.shr_u (local.get $cross) (i64.const 32)))
               (i64.mul (local.get $ah) (local.get $bh)))))

  (func $avalanche (param $h i64) (result i64)
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 37))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x165667919E3779F9)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  (func $xxh64avalanche (param $h i64) (result i64)
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0xC2B2AE3D27D4EB4F)))
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x165667B19E3779F9)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  (func $rrmxmx (param $h i64) (param $len i64) (result i64)
    (local.set $h (i64.xor (local.get $h)
      (i64.xor (i64.rotl (local.get $h) (i64.const 49)) (i64.rotl (local.get $h) (i64.const 24)))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x9FB21C651E98DF25)))
    (local.set $h (i64.xor (local.get $h) (i64.add (i64.shr_u (local.get $h) (i64.const 35)) (local.get $len))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x9FB21C651E98DF25)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 28))))

  (func $accumulate512 (param $p i32) (param $s i32)
    (local $i i32) (local $v i64) (local $k i64) (local $a i32)
    (loop $l
      (local.set $v (i64.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 3)))))
      (local.set $k (i64.xor (local.get $v) (i64.load (i32.add (local.get $s) (i32.shl (local.get $i) (i32.const 3))))))
      ;; acc[i ^ 1] += v
      (local.set $a (i32.add (i32.const 192) (i32.shl (i32.xor (local.get $i) (i32.const 1)) (i32.const 3))))
      (i64.store (local.get $a) (i64.add (i64.load (local.get $a)) (local.get $v)))
      ;; acc[i] += lo32(k) * hi32(k)
      (local.set $a (i32.add (i32.const 192) (i32.shl (local.get $i) (i32.const 3))))
      (i64.store (local.get $a) (i64.add (i64.load (local.get $a))
        (i64.mul (i64.and (local.get $k) (i64.const 0xffffffff)) (i64.shr_u (local.get $k) (i64.const 32)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 8)))))

  (func $scramble
    (local $i i32) (local $a i32) (local $v i64)
    (loop $l
      (local.set $a (i32.add (i32.const 192) (i32.shl (local.get $i) (i32.const 3))))
      (local.set $v (i64.load (local.get $a)))
      (local.set $v (i64.xor (i64.xor (local.get $v) (i64.shr_u (local.get $v) (i64.const 47)))
                             (i64.load (i32.add (i32.const 128) (i32.shl (local.get $i) (i32.const 3))))))
      (i64.store (local.get $a) (i64.mul (local.get $v) (i64.const 0x9E3779B1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 8)))))

  ;; XXH3_hashLong_64b over inputs above 240 bytes: 16 stripes of 64 bytes per 1,024-byte block,
  ;; a scramble after each full block, the last partial block, then the last stripe.
  (func $long (param $p i32) (param $len i32) (result i64)
    (local $blocks i32) (local $b i32) (local $n i32) (local $stripes i32) (local $r i64)
    (i64.store offset=192 (i32.const 0) (i64.const 0xC2B2AE3D))
    (i64.store offset=200 (i32.const 0) (i64.const 0x9E3779B185EBCA87))
    (i64.store offset=208 (i32.const 0) (i64.const 0xC2B2AE3D27D4EB4F))
    (i64.store offset=216 (i32.const 0) (i64.const 0x165667B19E3779F9))
    (i64.store offset=224 (i32.const 0) (i64.const 0x85EBCA77C2B2AE63))
    (i64.store offset=232 (i32.const 0) (i64.const 0x85EBCA77))
    (i64.store offset=240 (i32.const 0) (i64.const 0x27D4EB2F165667C5))
    (i64.store offset=248 (i32.const 0) (i64.const 0x9E3779B1))
    (local.set $blocks (i32.div_u (i32.sub (local.get $len) (i32.const 1)) (i32.const 1024)))
    (block $done
      (loop $blk
        (br_if $done (i32.ge_u (local.get $b) (local.get $blocks)))
        (local.set $n (i32.const 0))
        (loop $st
          (call $accumulate512
            (i32.add (i32.add (local.get $p) (i32.mul (local.get $b) (i32.const 1024))) (i32.shl (local.get $n) (i32.const 6)))
            (i32.shl (local.get $n) (i32.const 3)))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (br_if $st (i32.lt_u (local.get $n) (i32.const 16))))
        (call $scramble)
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $blk)))
    (local.set $stripes (i32.shr_u (i32.sub (i32.sub (local.get $len) (i32.const 1)) (i32.mul (local.get $blocks) (i32.const 1024))) (i32.const 6)))
    (local.set $n (i32.const 0))
    (block $d2
      (loop $st2
        (br_if $d2 (i32.ge_u (local.get $n) (local.get $stripes)))
        (call $accumulate512
          (i32.add (i32.add (local.get $p) (i32.mul (local.get $blocks) (i32.const 1024))) (i32.shl (local.get $n) (i32.const 6)))
          (i32.shl (local.get $n) (i32.const 3)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $st2)))
    (call $accumulate512 (i32.sub (i32.add (local.get $p) (local.get $len)) (i32.const 64)) (i32.const 121))
    (local.set $r (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9E3779B185EBCA87)))
    (local.set $r (i64.add (local.get $r) (call $fold (i64.xor (i64.load offset=192 (i32.const 0)) (i64.load offset=11 (i32.const 0)))
                                                      (i64.xor (i64.load offset=200 (i32.const 0)) (i64.load offset=19 (i32.const 0))))))
    (local.set $r (i64.add (local.get $r) (call $fold (i64.xor (i64.load offset=208 (i32.const 0)) (i64.load offset=27 (i32.const 0)))
                                                      (i64.xor (i64.load offset=216 (i32.const 0)) (i64.load offset=35 (i32.const 0))))))
    (local.set $r (i64.add (local.get $r) (call $fold (i64.xor (i64.load offset=224 (i32.const 0)) (i64.load offset=43 (i32.const 0)))
                                                      (i64.xor (i64.load offset=232 (i32.const 0)) (i64.load offset=51 (i32.const 0))))))
    (local.set $r (i64.add (local.get $r) (call $fold (i64.xor (i64.load offset=240 (i32.const 0)) (i64.load offset=59 (i32.const 0)))
                                                      (i64.xor (i64.load offset=248 (i32.const 0)) (i64.load offset=67 (i32.const 0))))))
    (call $avalanche (local.get $r)))

;; XXH3 for 129..240 bytes: 16-byte rounds over the input, the first eight against secret
  ;; offsets 16 i, then an avalanche, the rest against 16 (i - 8) + 3, then the last 16 bytes
  ;; against offset 119. One loop with the mix step written out: a frame of a 100-byte message
  ;; (140 bytes hashed) runs it eight times, and the engine does not inline calls.
  (func $mid (param $p i32) (param $len i32) (result i64)
    (local $acc i64) (local $i i32) (local $rounds i32) (local $q i32) (local $s i32)
    (local $a i64) (local $b i64)
    (local $al i64) (local $ah i64) (local $bl i64) (local $bh i64)
    (local $ll i64) (local $hl i64) (local $lh i64) (local $cross i64)
    (local.set $acc (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9E3779B185EBCA87)))
    (local.set $rounds (i32.shr_u (local.get $len) (i32.const 4)))
    (loop $l
      (local.set $q (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 4))))
      (local.set $s (select
        (i32.shl (local.get $i) (i32.const 4))
        (i32.add (i32.shl (i32.sub (local.get $i) (i32.const 8)) (i32.const 4)) (i32.const 3))
        (i32.lt_u (local.get $i) (i32.const 8))))
      (local.set $a (i64.xor (i64.load (local.get $q)) (i64.load (local.get $s))))
      (local.set $b (i64.xor (i64.load offset=8 (local.get $q)) (i64.load offset=8 (local.get $s))))
      (local.set $al (i64.and (local.get $a) (i64.const 0xffffffff)))
      (local.set $ah (i64.shr_u (local.get $a) (i64.const 32)))
      (local.set $bl (i64.and (local.get $b) (i64.const 0xffffffff)))
      (local.set $bh (i64.shr_u (local.get $b) (i64.const 32)))
      (local.set $ll (i64.mul (local.get $al) (local.get $bl)))
      (local.set $hl (i64.mul (local.get $ah) (local.get $bl)))
      (local.set $lh (i64.mul (local.get $al) (local.get $bh)))
      (local.set $cross (i64.add (i64.add (i64.shr_u (local.get $ll) (i64.const 32))
                                         (i64.and (local.get $hl) (i64.const 0xffffffff)))
                                (local.get $lh)))
      (local.set $acc (i64.add (local.get $acc)
        (i64.xor
          (i64.or (i64.shl (local.get $cross) (i64.const 32)) (i64.and (local.get $ll) (i64.const 0xffffffff)))
          (i64.add (i64.add (i64.shr_u (local.get $hl) (i64.const 32)) (i64.shr_u (local.get $cross) (i64.const 32)))
                   (i64.mul (local.get $ah) (local.get $bh))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      ;; $len > 128, so there are at least eight rounds: the avalanche always comes.
      (if (i32.eq (local.get $i) (i32.const 8)) (then (local.set $acc (call $avalanche (local.get $acc)))))
      (br_if $l (i32.lt_u (local.get $i) (local.get $rounds))))
    (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.sub (i32.add (local.get $p) (local.get $len)) (i32.const 16)) (i32.const 119))))
    (call $avalanche (local.get $acc)))

    ;; XXH3_64bits of `len` bytes at `p`.
  (func $hash (export "hash") (param $p i32) (param $len i32) (result i64)
    (local $acc i64) (local $e i32) (local $i i32) (local $rounds i32) (local $lo i64) (local $hi i64)
    (if (i32.gt_u (local.get $len) (i32.const 240)) (then (return (call $long (local.get $p) (local.get $len)))))
    (local.set $e (i32.add (local.get $p) (local.get $len)))
    (if (i32.gt_u (local.get $len) (i32.const 128)) (then
      (return (call $mid (local.get $p) (local.get $len)))))
    (if (i32.gt_u (local.get $len) (i32.const 16)) (then
      (local.set $acc (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9E3779B185EBCA87)))
      (if (i32.gt_u (local.get $len) (i32.const 32)) (then
        (if (i32.gt_u (local.get $len) (i32.const 64)) (then
          (if (i32.gt_u (local.get $len) (i32.const 96)) (then
            (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.add (local.get $p) (i32.const 48)) (i32.const 96))))
            (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.sub (local.get $e) (i32.const 64)) (i32.const 112))))))
          (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.add (local.get $p) (i32.const 32)) (i32.const 64))))
          (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.sub (local.get $e) (i32.const 48)) (i32.const 80))))))
        (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.add (local.get $p) (i32.const 16)) (i32.const 32))))
        (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.sub (local.get $e) (i32.const 32)) (i32.const 48))))))
      (local.set $acc (i64.add (local.get $acc) (call $mix16 (local.get $p) (i32.const 0))))
      (local.set $acc (i64.add (local.get $acc) (call $mix16 (i32.sub (local.get $e) (i32.const 16)) (i32.const 16))))
      (return (call $avalanche (local.get $acc)))))
    (if (i32.gt_u (local.get $len) (i32.const 8)) (then
      (local.set $lo (i64.xor (i64.load (local.get $p)) (i64.xor (i64.load offset=24 (i32.const 0)) (i64.load offset=32 (i32.const 0)))))
      (local.set $hi (i64.xor (i64.load (i32.sub (local.get $e) (i32.const 8))) (i64.xor (i64.load offset=40 (i32.const 0)) (i64.load offset=48 (i32.const 0)))))
      (return (call $avalanche
        (i64.add (i64.add (i64.add (i64.extend_i32_u (local.get $len)) (call $bswap (local.get $lo))) (local.get $hi))
                 (call $fold (local.get $lo) (local.get $hi)))))))
    (if (i32.ge_u (local.get $len) (i32.const 4)) (then
      (return (call $rrmxmx
        (i64.xor
          (i64.or (i64.load32_u (i32.sub (local.get $e) (i32.const 4))) (i64.shl (i64.load32_u (local.get $p)) (i64.const 32)))
          (i64.xor (i64.load offset=8 (i32.const 0)) (i64.load offset=16 (i32.const 0))))
        (i64.extend_i32_u (local.get $len))))))
    (if (i32.gt_u (local.get $len) (i32.const 0)) (then
      (return (call $xxh64avalanche
        (i64.xor
          (i64.extend_i32_u (i32.or (i32.or (i32.shl (i32.load8_u (local.get $p)) (i32.const 16))
                                             (i32.shl (i32.load8_u (i32.add (local.get $p) (i32.shr_u (local.get $len) (i32.const 1)))) (i32.const 24)))
                                    (i32.or (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.shl (local.get $len) (i32.const 8)))))
          (i64.extend_i32_u (i32.xor (i32.load (i32.const 0)) (i32.load (i32.const 4)))))))))
    (call $xxh64avalanche (i64.xor (i64.load offset=56 (i32.const 0)) (i64.load offset=64 (i32.const 0)))))

  (func $bswap (param $x i64) (result i64)
    (i64.or
      (i64.or
        (i64.or (i64.shl (local.get $x) (i64.const 56)) (i64.shl (i64.and (local.get $x) (i64.const 0xff00)) (i64.const 40)))
        (i64.or (i64.shl (i64.and (local.get $x) (i64.const 0xff0000)) (i64.const 24)) (i64.shl (i64.and (local.get $x) (i64.const 0xff000000)) (i64.const 8))))
      (i64.or
        (i64.or (i64.and (i64.shr_u (local.get $x) (i64.const 8)) (i64.const 0xff000000)) (i64.and (i64.shr_u (local.get $x) (i64.const 24)) (i64.const 0xff0000)))
        (i64.or (i64.and (i64.shr_u (local.get $x) (i64.const 40)) (i64.const 0xff00)) (i64.shr_u (local.get $x) (i64.const 56))))))

  ;; Walks `count` frames from $p (a frame is [48-byte header][payload][user headers]; u32 header
  ;; length at +32, payload length at +36) and hashes each over its bytes 8..end. $mode 0 writes
  ;; the checksum at the frame's first 8 bytes; $mode 1 compares it. Every checksum is also copied
  ;; to $sums + 8 i. Returns -1 when all frames were handled and tile [$p, $end) exactly, the index
  ;; of the first mismatching frame (mode 1), or -2 when the frames do not tile the range.
  (func $frames (export "frames") (param $p i32) (param $end i32) (param $count i32) (param $sums i32) (param $mode i32) (result i32)
    (local $i i32) (local $fe i64) (local $h i64)
    (block $out (loop $l
      (br_if $out (i32.ge_u (local.get $i) (local.get $count)))
      (if (i64.gt_u (i64.add (i64.extend_i32_u (local.get $p)) (i64.const 48)) (i64.extend_i32_u (local.get $end)))
        (then (return (i32.const -2))))
      (local.set $fe (i64.add (i64.add (i64.add (i64.extend_i32_u (local.get $p)) (i64.const 48))
                                       (i64.extend_i32_u (i32.load offset=32 (local.get $p))))
                              (i64.extend_i32_u (i32.load offset=36 (local.get $p)))))
      (if (i64.gt_u (local.get $fe) (i64.extend_i32_u (local.get $end))) (then (return (i32.const -2))))
      (local.set $h (call $hash (i32.add (local.get $p) (i32.const 8)) (i32.sub (i32.wrap_i64 (local.get $fe)) (i32.add (local.get $p) (i32.const 8)))))
      (if (local.get $mode)
        (then (if (i64.ne (local.get $h) (i64.load (local.get $p))) (then (return (local.get $i)))))
        (else (i64.store (local.get $p) (local.get $h))))
      (i64.store (i32.add (local.get $sums) (i32.shl (local.get $i) (i32.const 3))) (local.get $h))
      (local.set $p (i32.wrap_i64 (local.get $fe)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (if (i32.ne (local.get $p) (local.get $end)) (then (return (i32.const -2))))
    (i32.const -1))
)

/*
 * Strata's commit and GC protocols as a Promela model, checked by Spin (model/check.ts runs it).
 *
 * Processes: WRITERS writers committing data files and deletes of them to one table through the shared log,
 * READERS readers pinned to a snapshot (one with a lease, one without), one GC process (retain-from, excision,
 * reclamation with a grace period, checkpoint and log compaction), and the clock. Every step names the code
 * that carries it out. The log layout is chosen at compile time: objects (create-if-absent per entry,
 * src/log/object-log.ts) by default, -DSEGMENTS for the segmented log (append under a lock after checking the
 * tail, a torn tail cut by the next holder, src/log/segment-log.ts).
 *
 * Checked (assertions, at every state Spin reaches):
 *   P1  an acknowledged commit is in the log exactly once, with the file id its caller was handed;
 *   P2  snapshot ids are gap-free: entry i of the log makes snapshot i;
 *   P3  no reader sees a half-applied commit: a file and the table's count of files move together;
 *   P4  no file reachable from a retained, tagged or leased snapshot is ever deleted, nor one a reader
 *       opened within the grace period still reads;
 *   P5  retain-from never moves back;
 *   P6  fencing: no commit of an older writer epoch is acknowledged (or applied) after a newer epoch is
 *       claimed before it in the log;
 *   P7  (objects, where a transaction asks nothing first) what an acknowledged commit's function read is what
 *       the log held just before its entry.
 * Mutants (-DMUTANT_...), each of which the checker must refute with a trail:
 *   MUTANT_IGNORE_LEASES   retain-from passes a leased snapshot (gc/retain-from.ts would clamp it)
 *   MUTANT_NO_CONFLICT     a rebase skips DuckLake's conflict check (src/txn/conflicts.ts)
 *   MUTANT_NO_GRACE        reclamation deletes as soon as excision schedules (gc/reclaim.ts)
 *   MUTANT_NEW_IDS         a rebase hands out new file ids (src/txn/ids.ts ReplayedIds keeps them)
 *   MUTANT_NO_FENCE        a writer of an older epoch is not fenced (src/commit/committer.ts checks the
 *                          epoch at its commit point; the index skips an older epoch's entries)
 *   MUTANT_NO_READ_CHECK   a commit past others' entries its function had not seen skips the check of what
 *                          it read (src/txn/conflicts.ts readConflict)
 */

#ifndef WRITERS
#define WRITERS 3
#endif
#define READERS 2
#define COMMITS 1          /* commits per writer */
#define MAXLOG 8           /* log entries: snapshot 0 plus every commit and the epoch claim */
#define FILES 6            /* file ids: writer w hands out w (its claimed id block, src/commit/id-blocks.ts); a mutant w + 3 */
#define GRACE 2            /* ticks a scheduled file waits (gc/reclaim.ts graceMs) */
#define LEASE_TTL 3        /* ticks a lease lasts (gc/leases.ts) */
#define MAXTIME 4

#define NONE 255

/* ---- the store: the log (src/log/commit-log.ts) and the data files (src/store/object-store.ts) ---- */
typedef Entry {
  byte kind;        /* 0 empty, 1 commit, 2 epoch claim, 3 stub (log compaction), 4 torn (a record cut short) */
  byte writer;
  byte epoch;
  byte added;       /* file id added, or NONE */
  byte removed;     /* file id removed (ended), or NONE */
  bool torn;        /* segments: a record cut short by a crash, not yet cut off */
};
Entry log[MAXLOG];
byte logLen = 1;                 /* entry 0: snapshot 0 (src/commit/init-entry.ts) */
bool fileExists[FILES];          /* the object is in the store */
byte epochNow = 0;               /* the newest writer epoch in the log */
bool segLock = false;            /* segments: the advisory append lock (src/log/segment-lock.ts) */

/* ---- what the catalog derives from the log (applied in order, src/commit/index-sync.ts) ---- */
byte fileBegin[FILES];           /* snapshot that added it, NONE if never */
byte fileEnd[FILES];             /* snapshot that ended it, NONE if live */
byte retainFrom = 0;
byte tagged = NONE;              /* one tag (gc/protection.ts: tagged snapshots are kept) */
byte leaseSnap = NONE;           /* the lease of reader 0 (gc/leases.ts) */
byte leaseExpires = 0;
bool scheduled[FILES];           /* excision scheduled the file for reclamation (keys/retention.ts) */
byte scheduledAt[FILES];
byte checkpointAt = 0;           /* entries below it are covered by a checkpoint (src/log/checkpoint.ts) */
byte time = 0;

/* ---- what callers were told ---- */
bool acked[WRITERS * COMMITS];
byte ackedSeq[WRITERS * COMMITS];
byte handedId[WRITERS * COMMITS];

/* Entries a reader or writer sees: a torn record at the tail fails its checksum and ends the log there
   (src/log/segment-file.ts), so the head is the entry before it. */
#define validLen (logLen - (log[logLen - 1].torn -> 1 : 0))

/* Visible at snapshot s (keys/visibility.ts): begun at or before s, not ended at or before s. */
#define visible(f, s) (fileBegin[f] != NONE && fileBegin[f] <= (s) && (fileEnd[f] == NONE || fileEnd[f] > (s)))

/* Applies entry i to the derived state: snapshot i (P2 by construction: one snapshot per entry, in order). */
inline apply(i) {
  if
#ifdef MUTANT_NO_FENCE
  :: log[i].kind == 1 ->
#else
  :: log[i].kind == 1 && log[i].epoch >= epochNow ->
#endif
       if :: log[i].added != NONE -> assert(fileBegin[log[i].added] == NONE); fileBegin[log[i].added] = i :: else -> skip fi;
       /* P1: a version is ended once — a second delete of one file is a lost update */
       if :: log[i].removed != NONE -> assert(fileEnd[log[i].removed] == NONE); fileEnd[log[i].removed] = i :: else -> skip fi
  :: else -> skip
  fi
}

/* P1: every acknowledged commit's entry holds its writer's file once. */
inline checkAcked() {
  byte c2, j2, seen2;
  for (c2 : 0 .. WRITERS * COMMITS - 1) {
    if
    :: acked[c2] ->
       seen2 = 0;
       for (j2 : 1 .. logLen - 1) {
         if :: (log[j2].kind == 1 || log[j2].kind == 3) && log[j2].writer == c2 / COMMITS && (log[j2].added == handedId[c2] || log[j2].removed == handedId[c2]) -> seen2++ :: else -> skip fi
       }
       assert(seen2 == 1);
       assert(log[ackedSeq[c2]].added == handedId[c2] || log[ackedSeq[c2]].removed == handedId[c2]);
       /* P6: no epoch claimed before it is newer than its own */
       for (j2 : 1 .. ackedSeq[c2] - 1) { if :: log[j2].kind == 2 -> assert(log[ackedSeq[c2]].epoch >= log[j2].epoch) :: else -> skip fi }
    :: else -> skip
    fi
  }
  c2 = 0; j2 = 0; seen2 = 0   /* dead values out of the state vector */
}

/*
 * A writer: prepares a commit on the state it has (src/txn/prepared.ts prepare), appends it at the next
 * sequence, and on a lost race catches up, runs DuckLake's conflict check and replays with the ids it took
 * (src/commit/committer.ts, src/txn/prepared.ts rebase). Writers 0 and 2 remove the file writer 1 adds when
 * they see it, so two deletes of one file race; a writer epoch claimed meanwhile fences older writers.
 */
proctype Writer(byte w) {
  byte c, seq, myEpoch, base, i, id, victim;
  bool done, conflict, saw;
  myEpoch = epochNow;
  for (c : 0 .. COMMITS - 1) {
    /* the caller is handed its file id before the commit (docs/DESIGN.md §6: ids are stable) */
    /* the function runs on one view: what it sees and the sequence it builds on are one state */
    atomic {
      id = w + c * WRITERS;
      victim = NONE;
#ifdef SEGMENTS
      base = validLen;   /* asked first: the newest state (decision 0016) */
#else
      /* src/commit/commit-engine.ts: nothing asked first (decision 0057): the state this process last applied,
         any prefix of the log it has seen */
      select(base : 1 .. validLen);
#endif
      /* writers 0 and 2 read the table's files (tx.reads().dataFiles) at their state, snapshot base - 1 */
      saw = (w != 1 && visible(1, base - 1));
      if :: saw -> victim = 1; id = NONE :: else -> skip fi;
      handedId[w * COMMITS + c] = (victim != NONE -> victim : id);
      if :: id != NONE -> fileExists[id] = true :: else -> skip fi;   /* the engine writes the file first */
    }
    done = false;
    do
    :: done -> break
    :: else ->
       atomic {
         seq = logLen;
#ifdef SEGMENTS
         /* src/log/segment-log.ts append: under the lock, check the tail, cut a torn one, append */
         segLock == false;  /* wait for the lock */
         segLock = true;
         if :: seq > 0 && log[seq - 1].torn -> log[seq - 1].kind = 0; log[seq - 1].torn = false; logLen--; seq-- :: else -> skip fi;
#endif
         if
         :: seq == base && seq < MAXLOG ->
            /* the race is won: this entry is the commit point (create-if-absent / append + fdatasync) */
            log[seq].kind = 1; log[seq].writer = w; log[seq].epoch = myEpoch;
            log[seq].added = id; log[seq].removed = victim;
            logLen++;
            /* fenced: an entry of an older epoch is written but never applied, and the writer is told FENCED */
            if
#ifdef MUTANT_NO_FENCE
            :: true ->
#else
            :: myEpoch >= epochNow ->
#endif
               apply(seq); acked[w * COMMITS + c] = true; ackedSeq[w * COMMITS + c] = seq;
#ifndef SEGMENTS
               /* P7: what the function read is what the log held just before its entry */
               if :: w != 1 -> assert(saw == visible(1, seq - 1)) :: else -> skip fi
#endif
            :: else -> skip
            fi;
            done = true
         :: else -> skip
         fi;
#ifdef SEGMENTS
         segLock = false;
#endif
       }
       /* lost the race: catch up (the entries are applied by whoever wrote them) and check for conflicts,
          on one view, as the committer does under the index lock */
       atomic {
         if
         :: !done ->
            conflict = false;
            i = base;
            do
            :: i < validLen ->
               if :: victim != NONE && log[i].removed == victim -> conflict = true :: else -> skip fi;
#if !defined(SEGMENTS) && !defined(MUTANT_NO_READ_CHECK)
               /* src/txn/conflicts.ts readConflict: a commit that changed the table's files it read (a stub
                  too: the code reads what a compacted commit did from the index, which a checkpoint restores) */
               if :: w != 1 && (log[i].added != NONE || log[i].removed != NONE) -> conflict = true :: else -> skip fi;
#endif
               i++
            :: else -> break
            od;
            i = 0;
#ifdef MUTANT_NO_CONFLICT
            conflict = false;
#endif
            /* (on objects the code then runs the function once more, as a process that asked first: a new
               commit, which one commit per writer leaves out) */
            if
            :: conflict -> done = true        /* CONFLICT: nothing written, the caller is told */
            :: else ->
               base = validLen;
#ifdef MUTANT_NEW_IDS
               if :: id != NONE -> id = w + 3 :: else -> skip fi;
#endif
               skip
            fi
         :: else -> skip
         fi
       }
    od;
    atomic { seq = 0; base = 0; conflict = false; done = false; saw = false }   /* dead values out of the state vector */
  }
  atomic { checkAcked() }
#ifdef SEGMENTS
  /* a writer may crash mid-append: a torn record the next lock holder cuts off */
  atomic { if :: logLen < MAXLOG && !segLock && !log[logLen - 1].torn -> log[logLen].torn = true; log[logLen].kind = 4; log[logLen].writer = NONE; logLen++ :: true -> skip fi }
#endif
}

/* The last writer also claims the writer epoch once (src/commit/committer.ts claimWriterEpoch). */
proctype EpochClaim() {
  atomic {
    logLen < MAXLOG && !segLock;
#ifdef SEGMENTS
    if :: log[logLen - 1].torn -> logLen--; log[logLen].kind = 0; log[logLen].torn = false :: else -> skip fi;
#endif
    epochNow++; log[logLen].kind = 2; log[logLen].epoch = epochNow; logLen++
  }
}

/*
 * A reader pinned to a snapshot (src/read/reader.ts): reader 0 takes a lease first (gc/leases.ts), reader 1
 * reads without one, inside the grace period of its open. It counts the files visible at its snapshot twice
 * and reads each (P3: a commit is all or nothing to it; P4: what it reads exists).
 */
proctype Reader(byte r) {
  byte s, f, opened, n0, n1;
  atomic {
    s = validLen - 1;
    s >= retainFrom || s == tagged;   /* OUT_OF_RETENTION otherwise (src/read/resolve-snapshot.ts) */
    opened = time;
    if :: r == 0 -> leaseSnap = s; leaseExpires = time + LEASE_TTL :: else -> skip fi;
    n0 = 0;
    for (f : 0 .. FILES - 1) { if :: visible(f, s) -> n0++ :: else -> skip fi }
    f = 0
  }
  /* the reads, later: whatever GC did in between, a protected file must still be there (one step, as the
     property is about the moment of each read, and the files a snapshot reads do not change under it) */
  atomic {
    n1 = 0;
    for (f : 0 .. FILES - 1) {
      if
      :: visible(f, s) ->
         n1++;
         /* protected while the lease holds (reader 0) or within the grace of its open (reader 1) */
         if :: (r == 0 && time < leaseExpires) || (r == 1 && time < opened + GRACE) -> assert(fileExists[f]) :: else -> skip fi
      :: else -> skip
      fi
    }
    assert(n1 == n0)   /* P3: the snapshot a reader holds does not change under it, commit by commit */
  }
}

/*
 * GC: advance retain-from (gc/retain-from.ts: never back, never past the head, never past an unexpired
 * lease), excise what ended below it unless a tagged or leased snapshot reads it (gc/excise.ts,
 * gc/protection.ts), reclaim what waited out its grace (gc/reclaim.ts), checkpoint and compact the log
 * (gc/compact-log.ts: entries a checkpoint covers become stubs).
 */
proctype GC() {
  byte target, f, old;
  bool due;
  do
  :: atomic {
       target = validLen - 1;
#ifndef MUTANT_IGNORE_LEASES
       if :: leaseSnap != NONE && time < leaseExpires && leaseSnap < target -> target = leaseSnap :: else -> skip fi;
#endif
       old = retainFrom;
       if :: target > retainFrom -> retainFrom = target :: else -> skip fi;
       assert(retainFrom >= old);   /* P5 */
       target = 0; old = 0
     }
  :: atomic {
       for (f : 0 .. FILES - 1) {
         due = fileEnd[f] != NONE && fileEnd[f] <= retainFrom && !scheduled[f];
         if :: tagged != NONE && visible(f, tagged) -> due = false :: else -> skip fi;
#ifndef MUTANT_IGNORE_LEASES
         if :: leaseSnap != NONE && time < leaseExpires && visible(f, leaseSnap) -> due = false :: else -> skip fi;
#endif
         if :: due -> scheduled[f] = true; scheduledAt[f] = time :: else -> skip fi
       }
       f = 0; due = false
     }
  :: atomic {
       for (f : 0 .. FILES - 1) {
         due = scheduled[f] && fileExists[f] && time >= scheduledAt[f] + GRACE;
#ifdef MUTANT_NO_GRACE
         due = scheduled[f] && fileExists[f];
#endif
         if
         :: due ->
            /* P4: nothing a retained, tagged or leased snapshot reads */
            assert(fileEnd[f] != NONE && fileEnd[f] <= retainFrom);
            assert(!(tagged != NONE && visible(f, tagged)));
            assert(!(leaseSnap != NONE && time < leaseExpires && visible(f, leaseSnap)));
            fileExists[f] = false
         :: else -> skip
         fi
       }
       f = 0; due = false
     }
  :: atomic {
       /* a checkpoint of the applied state, then log compaction: the entries it covers become stubs that keep
          their sequence, so snapshot ids stay gap-free (P2) and an acknowledged commit stays in (P1) */
       checkpointAt < validLen;
       checkpointAt = validLen;
       for (f : 1 .. checkpointAt - 1) { if :: log[f].kind == 1 -> log[f].kind = 3 :: else -> skip fi }
       f = 0
     }
  :: atomic { tagged == NONE && validLen > 1 -> tagged = validLen - 1 }   /* a user tags the head */
  :: break
  od
}

proctype Clock() {
  do
  :: time < MAXTIME -> time++
  :: break
  od
}

init {
  byte w;
  byte k;
  for (k : 0 .. FILES - 1) { fileBegin[k] = NONE; fileEnd[k] = NONE }
  atomic {
    for (w : 0 .. WRITERS - 1) { run Writer(w) }
    run EpochClaim();
    run Reader(0);
    run Reader(1);
    run GC();
    run Clock()
  }
}

/*
 * Turns (docs/decisions/0060): WRITERS writers, each making COMMITS commits to one log, and a writer that
 * lost waits in line. strata.pml checks what a commit is (P1-P7); this model checks only whose entry comes
 * next, with as many commits per writer as it takes to starve one.
 *
 * Segments (default): a writer tries under the append lock (src/log/segment-log.ts append); it writes
 * nothing when its state is not the newest or when another writer stands in line (it lets that one in
 * first). A writer that lost stands in line (src/log/segment-waiters.ts stand) with the time it began to
 * wait, and takes the lock only while no one who began earlier stands there (src/log/segment-lock.ts
 * takeInTurn, which looks again under the lock), holding it across its catch-up and append.
 * -DOBJECTS: no lock; an entry is a create-if-absent of the next number (src/log/object-log.ts). A waiter's
 * mark is an object (src/log/turns.ts) and it tries once no older mark stands; a writer not waiting looks
 * for marks at every CHECK_EVERY-th create (beside it) and, once it saw one, goes into line too
 * (src/commit/committer.ts contended). Its try in turn can lose to one that has not looked yet.
 *
 * Checked: P8 a writer that stood in line lands before more than BOUND of the others' entries do (on objects
 * from when its mark is there: its create, beside its first look, takes a round trip).
 * Objects: each waiter's first look runs beside the create of its mark, so two waiters may each miss the
 * other's; one of them then loses the create and looks again.
 * Mutant -DMUTANT_NO_LINE: no one lets a waiter in first and waiters take the lock (or try) whenever they
 * can, as before decision 0060: refuted by P8.
 */

#ifndef WRITERS
#define WRITERS 2
#endif
#ifndef COMMITS
#define COMMITS 4
#endif
#ifndef CHECK_EVERY
#define CHECK_EVERY 2
#endif

#ifdef OBJECTS
/* Each other writer: its entry if it was ahead in line, and its creates up to and with its first look after
   this writer's mark is there. */
#define BOUND ((WRITERS - 1) * (CHECK_EVERY + 1))
#else
/* The writers ahead in line, and one that held the lock when this one stood. */
#define BOUND WRITERS
#endif

byte logLen = 0;
bool lock = false;                /* segments: flock(2) on segments/LOCK */
byte since[WRITERS];              /* when a writer began to wait (0: not in line) */
byte clock = 1;
byte stoodAt[WRITERS];            /* the log's length when it stood in line */
byte landed[WRITERS];             /* commits landed */

/* Whether no other writer that began to wait before `at` stands in line. */
inline firstSince(w, at, yes) {
  yes = true;
  for (o : 0 .. WRITERS - 1) {
    if :: o != w && since[o] != 0 && since[o] < at -> yes = false :: else -> skip fi
  }
  o = 0
}

inline firstInLine(w, yes) {
  firstSince(w, since[w], yes)
}

inline anyoneWaiting(w, yes) {
  yes = false;
  for (o : 0 .. WRITERS - 1) {
    if :: o != w && since[o] != 0 -> yes = true :: else -> skip fi
  }
  o = 0
}

/* A writer's entry in its turn, out of line; P8: the others' entries since it stood there. */
inline landInTurn(w) {
  assert(logLen - stoodAt[w] <= BOUND);
  logLen++;
  since[w] = 0;
  stoodAt[w] = 0
}

proctype Writer(byte w) {
  byte base, o, creates, mine;
  bool won, first, waiting, contended;
  do
  :: landed[w] == COMMITS -> break
  :: else ->
     /* no other writer met for CONTENDED_MS (none waiting): it tries first as a lone writer again */
     atomic { anyoneWaiting(w, waiting); if :: !waiting -> if :: contended = false :: skip fi :: else -> skip fi; waiting = false };
     /* the function runs on the newest state this writer has: its own entries, and the others' it read */
     base = logLen;
     won = false;
     if
     :: contended -> skip                      /* met another writer: straight into line */
     :: else ->
#ifdef OBJECTS
        atomic {
          creates++;
          /* beside every CHECK_EVERY-th create, a look for marks */
          if :: creates % CHECK_EVERY == 0 -> anyoneWaiting(w, waiting); if :: waiting -> contended = true :: else -> skip fi :: else -> skip fi;
          if :: logLen == base -> logLen++; won = true :: else -> skip fi
        }
#else
        atomic { !lock -> lock = true };
        atomic {
          anyoneWaiting(w, waiting);
#ifdef MUTANT_NO_LINE
          waiting = false;
#endif
          if :: logLen == base && !waiting -> logLen++; won = true :: else -> skip fi;
          if :: waiting -> contended = true :: else -> skip fi;
          lock = false
        }
#endif
     fi;
     if
     :: won -> skip
     :: else ->
        contended = true;
#ifdef OBJECTS
        /* src/log/turns.ts run: its mark is created beside its first look, so that look may not see another
           waiter's mark being created beside that one's, nor that one its own */
        atomic { mine = clock; clock++ };
        atomic { firstSince(w, mine, first) };
        /* it stands in line once its mark is there */
        atomic { since[w] = mine; mine = 0; stoodAt[w] = logLen };
        if :: first -> base = logLen; atomic { if :: logLen == base -> landInTurn(w); won = true :: else -> skip fi } :: else -> skip fi;
#else
        /* in line: the time it began to wait, then standing there */
        atomic { since[w] = clock; clock++ };
        stoodAt[w] = logLen;
#endif
        do
        :: won -> break
        :: else ->
           /* a look: first in line (and, on segments, the lock free and taken) */
           atomic {
             firstInLine(w, first);
#ifdef MUTANT_NO_LINE
             first = true;
#endif
#ifdef OBJECTS
             base = logLen              /* caught up meanwhile */
#else
             if :: first && !lock -> lock = true :: else -> first = false fi
#endif
           };
           if
           :: first ->
#ifdef OBJECTS
              atomic { if :: logLen == base -> landInTurn(w); won = true :: else -> skip fi }
#else
              atomic { landInTurn(w); won = true; lock = false }
#endif
           :: else -> skip
           fi
        od;
     fi;
     atomic { landed[w]++; base = 0; won = false; first = false; waiting = false }
  od
}

init {
  atomic {
    byte w;
    for (w : 0 .. WRITERS - 1) { run Writer(w) }
  }
}

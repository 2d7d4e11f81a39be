// Each test double of an ObjectStore in its pass-through mode (no fault armed; counting changes no answer):
// what the store and log conformance suites run them as, so a double that answers otherwise than the store
// it wraps fails there, not in a test that trusted it.
import type { ObjectStore } from '../../../src/store/object-store.js';
import { CountingStore } from './counting-store.js';
import { FaultyStore } from './faulty-store.js';

export const passThroughDoubles: Record<string, (inner: ObjectStore) => ObjectStore> = {
  'fault-injecting store': (inner) => new FaultyStore(inner, {}),
  'counting store': (inner) => new CountingStore(inner),
};

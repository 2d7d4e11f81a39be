// Schemas (ducklake_schema) and their name index. A schema's versions are `[Schema][schema_id][begin]`; the
// name index `[SchemaNameIndex][name][begin]` → schema id makes "the schema called N at S" one seek whatever
// the history depth: versions of one name never overlap, so the newest entry at or below S is the only
// candidate.
import type { CatalogId } from './ids.js';
import { group, type Group } from './groups.js';
import { Space } from './spaces.js';
import { Entity, type Versioned } from './versions.js';

export interface SchemaRow extends Versioned {
  name: string;
  uuid: string;
}

export interface SchemaNameIndexRow extends Versioned {
  schemaId: CatalogId;
}

export const schemaEntity = (id: CatalogId): Entity<SchemaRow> => new Entity(Space.Schema, [id]);

/** Every version of every schema. */
export const ALL_SCHEMAS: Group = group(Space.Schema);

/** The name index entry of one schema name. */
export const schemaNameEntity = (name: string): Entity<SchemaNameIndexRow> => new Entity(Space.SchemaNameIndex, [name]);

/** The schema id of a version read from ALL_SCHEMAS. */
export const schemaIdOf = (fields: readonly unknown[]): CatalogId => fields[0] as CatalogId;

// The response shapes of the Iceberg REST catalog's OpenAPI document (apache/iceberg,
// open-api/rest-catalog-open-api.yaml, components/schemas), written out here as JSON Schema for Ajv: what is
// required, each field's type, the enums and bounds the document gives. Kept apart from the server's code, so a
// server that drifts from the spec fails against it. Only the schemas the read routes answer with are here.
import { Ajv } from 'ajv';

const int = { type: 'integer' } as const;
const str = { type: 'string' } as const;
const strings = { type: 'object', additionalProperties: str } as const;

const defs = {
  Namespace: { type: 'array', items: str },
  PageToken: { type: ['string', 'null'] },
  TableIdentifier: { type: 'object', required: ['namespace', 'name'], properties: { namespace: { $ref: '#/$defs/Namespace' }, name: str } },
  ErrorModel: {
    type: 'object',
    required: ['message', 'type', 'code'],
    properties: { message: str, type: str, code: { type: 'integer', minimum: 400, maximum: 600 }, stack: { type: 'array', items: str } },
  },
  StructField: {
    type: 'object',
    required: ['id', 'name', 'type', 'required'],
    properties: { id: int, name: str, type: { $ref: '#/$defs/Type' }, required: { type: 'boolean' }, doc: str },
  },
  StructType: { type: 'object', required: ['type', 'fields'], properties: { type: { const: 'struct' }, fields: { type: 'array', items: { $ref: '#/$defs/StructField' } } } },
  ListType: {
    type: 'object',
    required: ['type', 'element-id', 'element', 'element-required'],
    properties: { type: { const: 'list' }, 'element-id': int, element: { $ref: '#/$defs/Type' }, 'element-required': { type: 'boolean' } },
  },
  MapType: {
    type: 'object',
    required: ['type', 'key-id', 'key', 'value-id', 'value', 'value-required'],
    properties: { type: { const: 'map' }, 'key-id': int, key: { $ref: '#/$defs/Type' }, 'value-id': int, value: { $ref: '#/$defs/Type' }, 'value-required': { type: 'boolean' } },
  },
  Type: { oneOf: [str, { $ref: '#/$defs/StructType' }, { $ref: '#/$defs/ListType' }, { $ref: '#/$defs/MapType' }] },
  Schema: { allOf: [{ $ref: '#/$defs/StructType' }, { type: 'object', properties: { 'schema-id': int, 'identifier-field-ids': { type: 'array', items: int } } }] },
  PartitionSpec: {
    type: 'object',
    required: ['fields'],
    properties: {
      'spec-id': int,
      fields: { type: 'array', items: { type: 'object', required: ['source-id', 'transform', 'name'], properties: { 'field-id': int, 'source-id': int, name: str, transform: str } } },
    },
  },
  SortOrder: {
    type: 'object',
    required: ['order-id', 'fields'],
    properties: {
      'order-id': int,
      fields: {
        type: 'array',
        items: {
          type: 'object',
          required: ['source-id', 'transform', 'direction', 'null-order'],
          properties: { 'source-id': int, transform: str, direction: { enum: ['asc', 'desc'] }, 'null-order': { enum: ['nulls-first', 'nulls-last'] } },
        },
      },
    },
  },
  Snapshot: {
    type: 'object',
    required: ['snapshot-id', 'timestamp-ms', 'manifest-list', 'summary'],
    properties: {
      'snapshot-id': int,
      'parent-snapshot-id': int,
      'sequence-number': int,
      'timestamp-ms': int,
      'manifest-list': str,
      summary: { type: 'object', required: ['operation'], properties: { operation: { enum: ['append', 'replace', 'overwrite', 'delete'] } }, additionalProperties: str },
      'schema-id': int,
    },
  },
  SnapshotReference: {
    type: 'object',
    required: ['type', 'snapshot-id'],
    properties: { type: { enum: ['tag', 'branch'] }, 'snapshot-id': int, 'max-ref-age-ms': int, 'max-snapshot-age-ms': int, 'min-snapshots-to-keep': int },
  },
  TableMetadata: {
    type: 'object',
    required: ['format-version', 'table-uuid'],
    properties: {
      'format-version': { type: 'integer', minimum: 1, maximum: 3 },
      'table-uuid': str,
      location: str,
      'last-updated-ms': int,
      properties: strings,
      schemas: { type: 'array', items: { $ref: '#/$defs/Schema' } },
      'current-schema-id': int,
      'last-column-id': int,
      'partition-specs': { type: 'array', items: { $ref: '#/$defs/PartitionSpec' } },
      'default-spec-id': int,
      'last-partition-id': int,
      'sort-orders': { type: 'array', items: { $ref: '#/$defs/SortOrder' } },
      'default-sort-order-id': int,
      snapshots: { type: 'array', items: { $ref: '#/$defs/Snapshot' } },
      refs: { type: 'object', additionalProperties: { $ref: '#/$defs/SnapshotReference' } },
      'current-snapshot-id': int,
      'last-sequence-number': int,
      'snapshot-log': { type: 'array', items: { type: 'object', required: ['snapshot-id', 'timestamp-ms'], properties: { 'snapshot-id': int, 'timestamp-ms': int } } },
      'metadata-log': { type: 'array', items: { type: 'object', required: ['metadata-file', 'timestamp-ms'], properties: { 'metadata-file': str, 'timestamp-ms': int } } },
    },
  },
};

const responses = {
  CatalogConfig: {
    type: 'object',
    required: ['defaults', 'overrides'],
    properties: { overrides: strings, defaults: strings, endpoints: { type: 'array', items: str } },
  },
  ListNamespacesResponse: {
    type: 'object',
    properties: { 'next-page-token': { $ref: '#/$defs/PageToken' }, namespaces: { type: 'array', uniqueItems: true, items: { $ref: '#/$defs/Namespace' } } },
  },
  GetNamespaceResponse: { type: 'object', required: ['namespace'], properties: { namespace: { $ref: '#/$defs/Namespace' }, properties: { type: ['object', 'null'], additionalProperties: str } } },
  ListTablesResponse: {
    type: 'object',
    properties: { 'next-page-token': { $ref: '#/$defs/PageToken' }, identifiers: { type: 'array', uniqueItems: true, items: { $ref: '#/$defs/TableIdentifier' } } },
  },
  LoadTableResult: {
    type: 'object',
    required: ['metadata'],
    properties: { 'metadata-location': { type: ['string', 'null'] }, metadata: { $ref: '#/$defs/TableMetadata' }, config: strings },
  },
  IcebergErrorResponse: { type: 'object', required: ['error'], properties: { error: { $ref: '#/$defs/ErrorModel' } }, additionalProperties: false },
};

export type ResponseSchema = keyof typeof responses;

const ajv = new Ajv({ allErrors: true, strict: true });
const validators = Object.fromEntries(Object.entries(responses).map(([name, s]) => [name, ajv.compile({ ...s, $defs: defs })]));

/** The spec's complaints about `body` as a `name`, as text; empty when it conforms. */
export function specErrors(name: ResponseSchema, body: unknown): string {
  const v = validators[name]!;
  return v(body) ? '' : ajv.errorsText(v.errors, { dataVar: name });
}

/**
 * The requested cost of a GraphQL Admin query, calculated the way Shopify documents it: an object
 * costs 1, a scalar 0, a connection or list costs its `first` (default 10 here) times what one of
 * its items costs, and a mutation's root field costs 10.
 */
import {
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FieldNode,
  type SelectionSetNode,
} from 'graphql';

const MUTATION_COST = 10;
const DEFAULT_FIRST = 10;

function firstOf(field: FieldNode, variables: Record<string, unknown>): number | undefined {
  const arg = field.arguments?.find((a) => a.name.value === 'first');
  if (arg === undefined) return undefined;
  if (arg.value.kind === Kind.INT) return Number(arg.value.value);
  if (arg.value.kind === Kind.VARIABLE) {
    const v = variables[arg.value.name.value];
    return typeof v === 'number' ? v : undefined;
  }
  return undefined;
}

function selectionCost(
  set: SelectionSetNode | undefined,
  variables: Record<string, unknown>,
): number {
  if (set === undefined) return 0;
  let cost = 0;
  for (const sel of set.selections) {
    if (sel.kind !== Kind.FIELD) {
      if (sel.kind === Kind.INLINE_FRAGMENT) cost += selectionCost(sel.selectionSet, variables);
      continue;
    }
    if (sel.selectionSet === undefined) continue;
    const inner = selectionCost(sel.selectionSet, variables);
    const first = firstOf(sel, variables);
    cost +=
      first === undefined ? 1 + inner : (first > 0 ? first : DEFAULT_FIRST) * Math.max(1, inner);
  }
  return cost;
}

export function requestedCost(doc: DocumentNode, variables: Record<string, unknown>): number {
  let cost = 0;
  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    if (def.operation === OperationTypeNode.MUTATION) {
      for (const sel of def.selectionSet.selections) {
        cost +=
          MUTATION_COST +
          (sel.kind === Kind.FIELD ? selectionCost(sel.selectionSet, variables) : 0);
      }
    } else {
      cost += selectionCost(def.selectionSet, variables);
    }
  }
  return Math.max(1, cost);
}

/**
 * The actual cost of an answer: 1 for each object it holds (a mutation's root field 10). Shopify
 * gives back the difference between the requested and the actual cost once a query has run.
 */
export function actualCost(data: unknown, mutation: boolean): number {
  const objects = (value: unknown): number => {
    if (Array.isArray(value)) return value.reduce((n: number, v) => n + objects(v), 0);
    if (value === null || typeof value !== 'object') return 0;
    return 1 + Object.values(value).reduce((n: number, v) => n + objects(v), 0);
  };
  if (data === null || typeof data !== 'object') return 1;
  const roots = Object.values(data);
  return Math.max(
    1,
    roots.reduce((n: number, v) => n + (mutation ? MUTATION_COST : 0) + objects(v), 0),
  );
}

/** The root field names of the document's operations (what a fault names). */
export function rootFields(doc: DocumentNode): string[] {
  return doc.definitions.flatMap((def) =>
    def.kind === Kind.OPERATION_DEFINITION
      ? def.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []))
      : [],
  );
}

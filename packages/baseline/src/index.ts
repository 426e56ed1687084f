export {
  createBaseline,
  refreshBaseline,
  describeBaseline,
  aliasTarget,
  defaultAlias,
  BaselineError,
  METADATA_KEY,
  type BaselineOptions,
  type BaselineRecord,
} from './baseline-collection.ts';
export { baselineInstructions } from './instructions.ts';

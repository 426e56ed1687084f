export { loadDebianKnowledge, DEFAULT_SOURCE_TRUST, type DebianKnowledgeOptions, type KnowledgeOrigin } from './debian-knowledge.ts';
export { readCorpus, DEFAULT_CORPUS_PATH, CORPUS_FORMAT, type DebianCorpus, type CorpusHeader, type CorpusSource } from './corpus.ts';
export { KnowledgeSource, HistoryProvider, type KnowledgeProvider } from './knowledge-source.ts';
export { chainValidity, publishedBy, subjectOf, validAt, type KnowledgeRecord } from './knowledge-record.ts';
export { parseChangelog, readChangelogs, changelogRecords, utcDay, type ChangelogEntry } from './debian-changelog.ts';
export { parseDeb822, installedPackages, readAptPackages, aptRecords, type AptPackage } from './apt-metadata.ts';
export { renderRecord, FIELD_SEPARATOR } from './render.ts';

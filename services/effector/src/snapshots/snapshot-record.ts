/** What the effector records of one collection snapshot it took (Elasticsearch), beside the archive in Qdrant. */
export interface SnapshotRecord {
  snapshot_id: string;
  collection: string;
  points_count: number;
  checksum: string | null;
  size_bytes: number | null;
  incident_id: string | null;
  action_id: string | null;
  created_at: string;
  duration_ms: number;
  status: 'created' | 'restored' | 'deleted';
  restored_at: string | null;
  /** When retention (or a person) deleted the archive; absent on records written before retention existed. */
  deleted_at?: string | null;
}

/** Why a deleted snapshot cannot serve a restore, naming it, its action and when retention deleted it. */
export function deletedSnapshot(record: SnapshotRecord): string {
  return `snapshot ${record.snapshot_id} of ${record.collection}${record.action_id ? ` (action ${record.action_id})` : ''} was deleted${record.deleted_at ? ` at ${record.deleted_at}` : ''} by snapshot retention`;
}

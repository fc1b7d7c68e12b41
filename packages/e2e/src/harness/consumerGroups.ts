import { type Admin, AssignerProtocol } from 'kafkajs';

/** One member of a consumer group, as the broker's group coordinator describes it. */
export interface GroupMember {
  clientId: string;
  /** The partitions of `topic` assigned to it (empty: a standby). */
  partitions: number[];
}

/** The members of a consumer group and what each holds of `topic` (empty while it rebalances). */
export async function readGroupMembers(admin: Admin, groupId: string, topic: string): Promise<GroupMember[]> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups.find((g) => g.groupId === groupId);
  if (!group || group.state !== 'Stable') return [];
  return group.members.map((m) => {
    const assignment =
      m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
    return { clientId: m.clientId, partitions: assignment?.assignment[topic] ?? [] };
  });
}

/** The group's committed offset of each partition of `topic` (-1: none yet). */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<Map<number, bigint>> {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return new Map((offsets?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
}

/** Whether a member's clientId is the one a process was given as KAFKA_CLIENT_ID (or that with a suffix). */
export const isClientOf = (member: GroupMember, kafkaClientId: string): boolean =>
  member.clientId === kafkaClientId || member.clientId.startsWith(`${kafkaClientId}-`);

/** Iggy command codes; the numbers are identical in the classic and the VSR protocol. */
export const CommandCode = {
  Ping: 1,
  GetStats: 10,
  GetSnapshot: 11,
  GetClusterMetadata: 12,
  DescribeOptions: 13,
  GetMe: 20,
  GetClient: 21,
  GetClients: 22,
  GetUser: 31,
  GetUsers: 32,
  CreateUser: 33,
  DeleteUser: 34,
  UpdateUser: 35,
  UpdatePermissions: 36,
  ChangePassword: 37,
  LoginUser: 38,
  LogoutUser: 39,
  LoginRegister: 40,
  GetPersonalAccessTokens: 41,
  CreatePersonalAccessToken: 42,
  DeletePersonalAccessToken: 43,
  LoginWithPersonalAccessToken: 44,
  LoginRegisterWithPersonalAccessToken: 45,
  PollMessages: 100,
  SendMessages: 101,
  FlushUnsavedBuffer: 102,
  GetConsumerOffset: 120,
  StoreConsumerOffset: 121,
  DeleteConsumerOffset: 122,
  GetStream: 200,
  GetStreams: 201,
  CreateStream: 202,
  DeleteStream: 203,
  UpdateStream: 204,
  PurgeStream: 205,
  GetTopic: 300,
  GetTopics: 301,
  CreateTopic: 302,
  DeleteTopic: 303,
  UpdateTopic: 304,
  PurgeTopic: 305,
  CreatePartitions: 402,
  DeletePartitions: 403,
  DeleteSegments: 503,
  GetConsumerGroup: 600,
  GetConsumerGroups: 601,
  CreateConsumerGroup: 602,
  DeleteConsumerGroup: 603,
  JoinConsumerGroup: 604,
  LeaveConsumerGroup: 605,
  SyncConsumerGroup: 606,
} as const;

/** A command code value of {@link CommandCode}. */
export type CommandCode = (typeof CommandCode)[keyof typeof CommandCode];

const KNOWN_CODES: ReadonlySet<number> = new Set(Object.values(CommandCode));

/** True when `code` is one of the command codes in {@link CommandCode}. */
export function isKnownCommandCode(code: number): boolean {
  return KNOWN_CODES.has(code);
}

/** `MessageChannel` with every post counted (the real delivery underneath). */
export function countingChannel(): { channel: typeof MessageChannel; posts: () => number } {
  let posts = 0;
  class Counting extends MessageChannel {
    constructor() {
      super();
      const post = this.port2.postMessage.bind(this.port2);
      this.port2.postMessage = (message: unknown) => {
        posts++;
        post(message);
      };
    }
  }
  return { channel: Counting, posts: () => posts };
}

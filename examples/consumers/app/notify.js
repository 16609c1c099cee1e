// Sends e-mail notifications; a slow mail server can take two minutes.
import { Consumer } from "sqs-consumer";
import { SQSClient } from "@aws-sdk/client-sqs";

const app = Consumer.create({
  queueUrl: process.env.NOTIFICATIONS_QUEUE_URL ?? "https://sqs.eu-west-1.amazonaws.com/123456789012/notifications",
  handleMessageTimeout: 120000,
  batchSize: 5,
  sqs: new SQSClient({ region: "eu-west-1" }),
  handleMessage: async (message) => {
    await sendMail(JSON.parse(message.Body));
  },
});

app.on("error", (err) => console.error(err.message));
app.start();

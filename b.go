package x
const acct = "123456789012"
func poll() {
	c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(fmt.Sprintf("https://sqs.eu-west-1.amazonaws.com/%s/%s", acct, "jobs"))})
}

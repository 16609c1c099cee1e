// The orders audit poller: reads the same queue as worker.py (ORDERS_QUEUE_URL from the ECS task of
// ../infra/main.tf), written in Go with the AWS SDK v2.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// an hour and a half, thought to be "safe": SQS takes at most 12 hours (43,200 s), and seconds, not milliseconds
const auditVisibility = 5400000

func poll(ctx context.Context, client *sqs.Client) error {
	_, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:            aws.String(os.Getenv("ORDERS_QUEUE_URL")),
		MaxNumberOfMessages: 10,
		WaitTimeSeconds:     20,
		VisibilityTimeout:   auditVisibility,
	})
	return err
}
